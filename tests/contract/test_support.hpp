// SPDX-License-Identifier: BSL-1.0
#pragma once
// Test-only helpers for the contract tests.

#include <candor/error/issue.hpp>

#include <boost/assert/source_location.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace contract_test {

inline bool has_code(const candor::issue_list& issues, std::string_view code, std::string_view path) {
    for (const auto& i : issues)
        if (i.code == code && i.path == path) return true;
    return false;
}

inline std::string codes(const candor::issue_list& issues) {
    std::string out;
    for (const auto& i : issues) out += i.code + " at '" + i.path + "': " + i.message + "\n";
    return out;
}

}  // namespace contract_test
