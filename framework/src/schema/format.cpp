// SPDX-License-Identifier: BSL-1.0
#include "format.hpp"

#include "pattern.hpp"

#include <boost/url/parse.hpp>

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace candor::schema::detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
    if (pos + n > s.size()) return false;
    out = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!is_digit(s[pos + i])) return false;
        out = out * 10 + (s[pos + i] - '0');
    }
    return true;
}

bool check_date(std::string_view s) {
    int y = 0, m = 0, d = 0;
    if (s.size() != 10 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, m) || s[7] != '-' ||
        !digits(s, 8, 2, d))
        return false;
    if (m < 1 || m > 12 || d < 1) return false;
    static constexpr std::array<int, 12> days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int max = days[static_cast<std::size_t>(m - 1)];
    if (m == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))) max = 29;
    return d <= max;
}

// RFC 3339 full-time: partial-time time-offset.
bool check_time(std::string_view s) {
    int h = 0, mi = 0, sec = 0;
    if (s.size() < 9 || !digits(s, 0, 2, h) || s[2] != ':' || !digits(s, 3, 2, mi) || s[5] != ':' ||
        !digits(s, 6, 2, sec))
        return false;
    std::size_t i = 8;
    if (i < s.size() && s[i] == '.') {
        ++i;
        std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return false;
    }
    if (i >= s.size()) return false;
    int off_h = 0, off_m = 0, sign = 0;
    if (s[i] == 'Z' || s[i] == 'z') {
        if (i + 1 != s.size()) return false;
    } else if (s[i] == '+' || s[i] == '-') {
        sign = s[i] == '+' ? 1 : -1;
        if (s.size() != i + 6 || !digits(s, i + 1, 2, off_h) || s[i + 3] != ':' || !digits(s, i + 4, 2, off_m))
            return false;
        if (off_h > 23 || off_m > 59) return false;
    } else {
        return false;
    }
    if (h > 23 || mi > 59 || sec > 60) return false;
    if (sec == 60) {
        // A leap second is 23:59:60 in UTC.
        int minutes = h * 60 + mi - sign * (off_h * 60 + off_m);
        minutes = ((minutes % 1440) + 1440) % 1440;
        if (minutes != 23 * 60 + 59) return false;
    }
    return true;
}

bool check_date_time(std::string_view s) {
    if (s.size() < 20 || (s[10] != 'T' && s[10] != 't')) return false;
    return check_date(s.substr(0, 10)) && check_time(s.substr(11));
}

// ISO 8601 duration as in RFC 3339 appendix A.
bool check_duration(std::string_view s) {
    if (s.size() < 2 || s[0] != 'P') return false;
    std::size_t i = 1;
    bool in_time = false, any = false, week = false, any_time = false;
    std::string_view date_order = "YMD", time_order = "HMS";
    std::size_t date_pos = 0, time_pos = 0;
    while (i < s.size()) {
        if (s[i] == 'T') {
            if (in_time) return false;
            in_time = true;
            ++i;
            continue;
        }
        std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start || i >= s.size()) return false;
        char unit = s[i++];
        any = true;
        if (unit == 'W') {
            if (in_time || date_pos != 0 || week) return false;
            week = true;
            continue;
        }
        if (week) return false;
        // Units come in order and without gaps (RFC 3339 appendix A: P1Y2D is not a duration).
        if (!in_time) {
            std::size_t p = date_order.find(unit, date_pos);
            if (p == std::string_view::npos || (date_pos != 0 && p != date_pos)) return false;
            date_pos = p + 1;
        } else {
            std::size_t p = time_order.find(unit, time_pos);
            if (p == std::string_view::npos || (time_pos != 0 && p != time_pos)) return false;
            time_pos = p + 1;
            any_time = true;
        }
    }
    if (in_time && !any_time) return false;
    return any;
}

bool check_hostname(std::string_view s) {
    if (s.empty() || s.size() > 253) return false;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = s.find('.', start);
        std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
        // "--" in positions 3-4 is reserved for A-labels ("xn--...").
        if (label.size() >= 4 && label.substr(2, 2) == "--") {
            // Only A-labels ("xn--", any case) may; their Punycode is not decoded here.
            if ((label[0] | 0x20) != 'x' || (label[1] | 0x20) != 'n') return false;
        }
        for (char c : label)
            if (!is_alpha(c) && !is_digit(c) && c != '-') return false;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return true;
}

bool check_ipv4(std::string_view s) {
    int parts = 0;
    std::size_t i = 0;
    while (true) {
        std::size_t start = i;
        int value = 0;
        while (i < s.size() && is_digit(s[i])) {
            value = value * 10 + (s[i] - '0');
            if (value > 255) return false;
            ++i;
        }
        std::size_t len = i - start;
        if (len == 0 || len > 3 || (len > 1 && s[start] == '0')) return false;
        ++parts;
        if (i == s.size()) break;
        if (s[i] != '.' || parts == 4) return false;
        ++i;
    }
    return parts == 4;
}

bool check_ipv6(std::string_view s) {
    if (s.empty()) return false;
    int groups = 0;
    bool compressed = false;
    std::size_t i = 0;
    if (s.substr(0, 2) == "::") {
        compressed = true;
        i = 2;
        if (i == s.size()) return true;
    } else if (s[0] == ':') {
        return false;
    }
    while (i < s.size()) {
        std::size_t start = i;
        while (i < s.size() && is_hex(s[i])) ++i;
        std::size_t len = i - start;
        if (i < s.size() && s[i] == '.') {
            // Embedded IPv4 takes the last 32 bits.
            if (!check_ipv4(s.substr(start))) return false;
            groups += 2;
            i = s.size();
            break;
        }
        if (len == 0 || len > 4) return false;
        ++groups;
        if (i == s.size()) break;
        if (s[i] != ':') return false;
        ++i;
        if (i < s.size() && s[i] == ':') {
            if (compressed) return false;
            compressed = true;
            ++i;
            if (i == s.size()) break;
        } else if (i == s.size()) {
            return false;
        }
    }
    return compressed ? groups < 8 : groups == 8;
}

bool check_email(std::string_view s) {
    std::size_t at = s.rfind('@');
    if (at == std::string_view::npos || at == 0 || at + 1 == s.size()) return false;
    std::string_view local = s.substr(0, at), domain = s.substr(at + 1);
    if (local.size() > 64) return false;
    if (local.front() == '"' && local.back() == '"' && local.size() >= 2) {
        // quoted local part: any printable except unescaped quote/backslash
    } else {
        if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos) return false;
        static constexpr std::string_view specials = "!#$%&'*+-/=?^_`{|}~.";
        for (char c : local)
            if (!is_alpha(c) && !is_digit(c) && specials.find(c) == std::string_view::npos) return false;
    }
    if (domain.front() == '[' && domain.back() == ']') {
        std::string_view lit = domain.substr(1, domain.size() - 2);
        if (lit.substr(0, 5) == "IPv6:") return check_ipv6(lit.substr(5));
        return check_ipv4(lit);
    }
    return check_hostname(domain);
}

bool check_uuid(std::string_view s) {
    if (s.size() != 36) return false;
    for (std::size_t i = 0; i < 36; ++i) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') return false;
        } else if (!is_hex(s[i])) {
            return false;
        }
    }
    return true;
}

bool check_json_pointer(std::string_view s) {
    if (!s.empty() && s[0] != '/') return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '~' && (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1'))) return false;
    }
    return true;
}

bool check_relative_json_pointer(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == 0 || (i > 1 && s[0] == '0')) return false;
    std::string_view rest = s.substr(i);
    if (rest == "#") return true;
    return check_json_pointer(rest);
}

bool ascii_only(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

// RFC 3986 on the authority text itself (Boost.URL 1.81 accepts "http://h:abc/" by ending the
// authority early): a port is digits only, and an authority holds at most one '@'.
bool authority_ok(std::string_view s) {
    std::size_t start = s.find("//");
    std::size_t colon = s.find(':');
    std::size_t first_delim = s.find_first_of("/?#");
    if (start == std::string_view::npos || start != first_delim) return true;  // no authority
    if (colon != std::string_view::npos && colon < start &&
        s.substr(0, colon).find_first_of("/?#") != std::string_view::npos)
        return true;
    std::string_view auth = s.substr(start + 2);
    auth = auth.substr(0, auth.find_first_of("/?#"));
    if (std::count(auth.begin(), auth.end(), '@') > 1) return false;
    std::string_view host_port = auth.substr(auth.find('@') == std::string_view::npos ? 0 : auth.find('@') + 1);
    std::size_t bracket = host_port.rfind(']');
    std::size_t port_colon = host_port.rfind(':');
    if (port_colon != std::string_view::npos && (bracket == std::string_view::npos || port_colon > bracket)) {
        for (char c : host_port.substr(port_colon + 1))
            if (!is_digit(c)) return false;
    }
    return true;
}

bool check_uri(std::string_view s, bool reference) {
    if (!ascii_only(s) || !authority_ok(s)) return false;
    return reference ? boost::urls::parse_uri_reference(s).has_value() : boost::urls::parse_uri(s).has_value();
}

bool check_uri_template(std::string_view s) {
    int depth = 0;
    for (char c : s) {
        if (c == '{') {
            if (++depth > 1) return false;
        } else if (c == '}') {
            if (--depth < 0) return false;
        }
    }
    return depth == 0;
}

}  // namespace

format_kind format_from_name(std::string_view n) noexcept {
    struct entry {
        std::string_view name;
        format_kind kind;
    };
    static constexpr std::array<entry, 19> table{{
        {"date", format_kind::date},
        {"date-time", format_kind::date_time},
        {"time", format_kind::time},
        {"duration", format_kind::duration},
        {"email", format_kind::email},
        {"idn-email", format_kind::idn_email},
        {"hostname", format_kind::hostname},
        {"idn-hostname", format_kind::idn_hostname},
        {"ipv4", format_kind::ipv4},
        {"ipv6", format_kind::ipv6},
        {"uri", format_kind::uri},
        {"uri-reference", format_kind::uri_reference},
        {"iri", format_kind::iri},
        {"iri-reference", format_kind::iri_reference},
        {"uri-template", format_kind::uri_template},
        {"uuid", format_kind::uuid},
        {"json-pointer", format_kind::json_pointer},
        {"relative-json-pointer", format_kind::relative_json_pointer},
        {"regex", format_kind::regex},
    }};
    for (const auto& e : table)
        if (e.name == n) return e.kind;
    return format_kind::other;
}

bool check_format(format_kind kind, std::string_view s) {
    switch (kind) {
        case format_kind::date: return check_date(s);
        case format_kind::date_time: return check_date_time(s);
        case format_kind::time: return check_time(s);
        case format_kind::duration: return check_duration(s);
        case format_kind::email: return check_email(s);
        case format_kind::idn_email:
            return s.find('@') != std::string_view::npos && s.front() != '@' && s.back() != '@';
        case format_kind::hostname: return check_hostname(s);
        case format_kind::idn_hostname: return !s.empty();
        case format_kind::ipv4: return check_ipv4(s);
        case format_kind::ipv6: return check_ipv6(s);
        case format_kind::uri: return check_uri(s, false);
        case format_kind::uri_reference: return check_uri(s, true);
        case format_kind::iri: return s.find(':') != std::string_view::npos && s.find(' ') == std::string_view::npos;
        case format_kind::iri_reference: return s.find(' ') == std::string_view::npos;
        case format_kind::uri_template: return check_uri_template(s);
        case format_kind::uuid: return check_uuid(s);
        case format_kind::json_pointer: return check_json_pointer(s);
        case format_kind::relative_json_pointer: return check_relative_json_pointer(s);
        case format_kind::regex: return compile_pattern(s).has_value();
        case format_kind::unset:
        case format_kind::other: return true;
    }
    return true;
}

std::string_view describe_format(format_kind kind) noexcept {
    switch (kind) {
        case format_kind::date: return "a date (YYYY-MM-DD)";
        case format_kind::date_time: return "a date-time (RFC 3339, e.g. 2024-05-01T12:00:00Z)";
        case format_kind::time: return "a time with offset (HH:MM:SS followed by Z or +HH:MM)";
        case format_kind::duration: return "an ISO 8601 duration (e.g. P1DT2H)";
        case format_kind::email: return "an email address";
        case format_kind::idn_email: return "an internationalized email address";
        case format_kind::hostname: return "a host name";
        case format_kind::idn_hostname: return "an internationalized host name";
        case format_kind::ipv4: return "an IPv4 address";
        case format_kind::ipv6: return "an IPv6 address";
        case format_kind::uri: return "an absolute URI";
        case format_kind::uri_reference: return "a URI reference";
        case format_kind::iri: return "an IRI";
        case format_kind::iri_reference: return "an IRI reference";
        case format_kind::uri_template: return "a URI template";
        case format_kind::uuid: return "a UUID (8-4-4-4-12 hex digits)";
        case format_kind::json_pointer: return "a JSON Pointer";
        case format_kind::relative_json_pointer: return "a relative JSON Pointer";
        case format_kind::regex: return "a regular expression";
        case format_kind::unset:
        case format_kind::other: return "the declared format";
    }
    return "the declared format";
}

}  // namespace candor::schema::detail
