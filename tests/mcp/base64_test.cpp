// SPDX-License-Identifier: BSL-1.0
// Standard base64 as MCP carries bytes: RFC 4648's test vectors, every byte value round trip,
// and a strict decoder (alphabet, groups of four, padding only at the end).
#include <candor/mcp/base64.hpp>

#include <gtest/gtest.h>

namespace candor::test {
namespace {

TEST(Base64, EncodesRfc4648sVectorsAndDecodesThemBack) {
    const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                           {"f", "Zg=="},
                                                           {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},
                                                           {"foob", "Zm9vYg=="},
                                                           {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        EXPECT_EQ(mcp::base64_encode(plain), encoded);
        EXPECT_EQ(mcp::base64_decode(encoded), std::string(plain));
    }
    std::string every;
    for (int c = 0; c < 256; ++c) every += static_cast<char>(c);
    EXPECT_EQ(mcp::base64_decode(mcp::base64_encode(every)), every);
}

TEST(Base64, TheDecoderTakesOnlyCanonicalGroups) {
    for (const char* bad : {"Zg", "Zg=", "Z===", "Zg==Zg==", "Zm9v!A==", "Zm9-", "Zm9_", "Zg =="})
        EXPECT_FALSE(mcp::base64_decode(bad)) << bad;
}

}  // namespace
}  // namespace candor::test
