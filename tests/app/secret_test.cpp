// SPDX-License-Identifier: BSL-1.0
#include <candor/app/secret.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using candor::app::read_secret;
using candor::app::secret_error;

// A temporary folder and the environment of one test: the variables it set are unset after.
class SecretTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl = (fs::temp_directory_path() / "candor-secret-XXXXXX").string();
        dir_ = ::mkdtemp(tmpl.data());
        for (const char* v : {"CANDOR_TEST_KEYS", "CANDOR_TEST_KEYS_FILE", "CREDENTIALS_DIRECTORY"}) ::unsetenv(v);
    }
    void TearDown() override {
        for (const char* v : {"CANDOR_TEST_KEYS", "CANDOR_TEST_KEYS_FILE", "CREDENTIALS_DIRECTORY"}) ::unsetenv(v);
        fs::remove_all(dir_);
    }
    std::string file(const std::string& name, const std::string& content) {
        const auto path = dir_ / name;
        std::ofstream(path) << content;
        return path.string();
    }
    fs::path dir_;
};

TEST_F(SecretTest, NothingSetIsNothing) {
    auto s = read_secret("CANDOR_TEST_KEYS", "candor-test-keys");
    ASSERT_TRUE(s);
    EXPECT_FALSE(*s);
}

TEST_F(SecretTest, FromTheVariable) {
    ::setenv("CANDOR_TEST_KEYS", "k1:abcd", 1);
    auto s = read_secret("CANDOR_TEST_KEYS", "candor-test-keys");
    ASSERT_TRUE(s && *s);
    EXPECT_EQ((*s)->value, "k1:abcd");
    EXPECT_EQ((*s)->source, "$CANDOR_TEST_KEYS");
}

TEST_F(SecretTest, FromTheFileNamedByTheFileVariableWithoutItsLineBreak) {
    const auto path = file("keys", "k1:abcd\r\n");
    ::setenv("CANDOR_TEST_KEYS_FILE", path.c_str(), 1);
    auto s = read_secret("CANDOR_TEST_KEYS");
    ASSERT_TRUE(s && *s);
    EXPECT_EQ((*s)->value, "k1:abcd");
    EXPECT_EQ((*s)->source, "$CANDOR_TEST_KEYS_FILE (" + path + ")");
}

TEST_F(SecretTest, FromASystemdCredential) {
    file("candor-test-keys", "k2:0123\n");
    ::setenv("CREDENTIALS_DIRECTORY", dir_.c_str(), 1);
    auto s = read_secret("CANDOR_TEST_KEYS", "candor-test-keys");
    ASSERT_TRUE(s && *s);
    EXPECT_EQ((*s)->value, "k2:0123");
    EXPECT_EQ((*s)->source, "credential candor-test-keys");
    // Another credential of the same unit is not this secret.
    EXPECT_FALSE(read_secret("CANDOR_TEST_KEYS", "other-name").value());
}

TEST_F(SecretTest, TwoPlacesAreAmbiguousNotASilentChoice) {
    ::setenv("CANDOR_TEST_KEYS", "k1:abcd", 1);
    ::setenv("CANDOR_TEST_KEYS_FILE", file("keys", "k2:0123").c_str(), 1);
    auto s = read_secret("CANDOR_TEST_KEYS");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, secret_error::ambiguous);
    EXPECT_EQ(s.error().where.find("k1:abcd"), std::string::npos);
}

TEST_F(SecretTest, AFileThatCannotBeUsedIsAnErrorNeverAFallback) {
    ::setenv("CANDOR_TEST_KEYS_FILE", (dir_ / "missing").c_str(), 1);
    EXPECT_EQ(read_secret("CANDOR_TEST_KEYS").error().code, secret_error::unreadable);
    ::setenv("CANDOR_TEST_KEYS_FILE", file("blank", "\n\n").c_str(), 1);
    EXPECT_EQ(read_secret("CANDOR_TEST_KEYS").error().code, secret_error::empty);
    ::setenv("CANDOR_TEST_KEYS_FILE", file("huge", std::string(candor::app::max_secret_bytes + 1, 'x')).c_str(), 1);
    EXPECT_EQ(read_secret("CANDOR_TEST_KEYS").error().code, secret_error::too_large);
    EXPECT_EQ(candor::app::to_string(secret_error::too_large), "too_large");
}

}  // namespace
