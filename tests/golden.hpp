// SPDX-License-Identifier: BSL-1.0
#pragma once
// Golden wire payloads (tests/data/<area>/<name>): read as JSON, compared deliberately; a
// golden file is updated by hand, never by a test.
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace candor::test {

/// The golden file `area/name` as JSON; a string naming the file when it is missing or not
/// JSON (so that a comparison with it fails and says which).
inline boost::json::value read_golden(std::string_view area, std::string_view name) {
    const std::string path = std::string(CANDOR_TEST_DATA_DIR) + "/" + std::string(area) + "/" + std::string(name);
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    boost::system::error_code ec;
    auto v = boost::json::parse(ss.str(), ec);
    if (ec) return boost::json::string("<golden file " + path + " missing or invalid>");
    return v;
}

}  // namespace candor::test
