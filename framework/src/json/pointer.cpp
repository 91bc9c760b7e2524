// SPDX-License-Identifier: BSL-1.0
#include <candor/json/pointer.hpp>

#include <charconv>

namespace candor::json {

void append_token(std::string& pointer, std::string_view token) {
    pointer.push_back('/');
    for (char c : token) {
        if (c == '~') {
            pointer.append("~0");
        } else if (c == '/') {
            pointer.append("~1");
        } else {
            pointer.push_back(c);
        }
    }
}

void append_index(std::string& pointer, std::size_t index) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, index);
    (void)ec;
    pointer.push_back('/');
    pointer.append(buf, end);
}

std::string child_pointer(std::string_view base, std::string_view token) {
    std::string out(base);
    append_token(out, token);
    return out;
}

bool unescape_token(std::string_view token, std::string& out) {
    out.clear();
    out.reserve(token.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
        const char c = token[i];
        if (c != '~') {
            out.push_back(c);
            continue;
        }
        if (i + 1 == token.size()) return false;
        const char n = token[++i];
        if (n == '0') {
            out.push_back('~');
        } else if (n == '1') {
            out.push_back('/');
        } else {
            return false;
        }
    }
    return true;
}

}  // namespace candor::json
