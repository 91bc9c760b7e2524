// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/source.hpp>

namespace candor::paging {

std::string_view to_string(snapshot_mode m) noexcept { return m == snapshot_mode::pinned ? "pinned" : "live"; }

std::string ordering::to_string() const {
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!out.empty()) out.push_back(',');
        if (descends(i)) out.push_back('-');
        out += fields[i];
    }
    return out;
}

namespace {

int rank(const boost::json::value& v) noexcept {
    switch (v.kind()) {
        case boost::json::kind::null: return 0;
        case boost::json::kind::bool_: return 1;
        case boost::json::kind::int64:
        case boost::json::kind::uint64:
        case boost::json::kind::double_: return 2;
        case boost::json::kind::string: return 3;
        default: return 4;  // containers are not keys; ranked last so the order stays total
    }
}

int compare_numbers(const boost::json::value& a, const boost::json::value& b) noexcept {
    if (a.is_double() || b.is_double()) {
        const double x = a.to_number<double>(), y = b.to_number<double>();
        return x < y ? -1 : (y < x ? 1 : 0);
    }
    if (a.is_int64() && b.is_int64()) {
        const auto x = a.get_int64(), y = b.get_int64();
        return x < y ? -1 : (y < x ? 1 : 0);
    }
    if (a.is_uint64() && b.is_uint64()) {
        const auto x = a.get_uint64(), y = b.get_uint64();
        return x < y ? -1 : (y < x ? 1 : 0);
    }
    // One int64, one uint64 (beyond int64's range): a negative int64 is smaller.
    if (a.is_int64())
        return a.get_int64() < 0 ? -1
                                 : compare_numbers(boost::json::value(static_cast<std::uint64_t>(a.get_int64())), b);
    return b.get_int64() < 0 ? 1 : compare_numbers(a, boost::json::value(static_cast<std::uint64_t>(b.get_int64())));
}

int compare_scalar(const boost::json::value& a, const boost::json::value& b) noexcept {
    const int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    switch (ra) {
        case 1: return a.get_bool() == b.get_bool() ? 0 : (a.get_bool() ? 1 : -1);
        case 2: return compare_numbers(a, b);
        case 3: {
            const int c = std::string_view(a.get_string()).compare(std::string_view(b.get_string()));
            return c < 0 ? -1 : (c > 0 ? 1 : 0);
        }
        default: return 0;
    }
}

}  // namespace

int compare_keys(const boost::json::array& a, const boost::json::array& b) noexcept {
    return compare_keys(std::span<const boost::json::value>(a.data(), a.size()),
                        std::span<const boost::json::value>(b.data(), b.size()));
}

int compare_keys(std::span<const boost::json::value> a, std::span<const boost::json::value> b) noexcept {
    static const ordering ascending;  // no field descends
    return compare_keys(a, b, ascending);
}

int compare_keys(std::span<const boost::json::value> a, std::span<const boost::json::value> b,
                 const ordering& order) noexcept {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (int c = compare_scalar(a[i], b[i]); c != 0) return order.descends(i) ? -c : c;
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

boost::asio::awaitable<boost::system::result<std::string, source_error>> data_source::open_snapshot(
    const boost::json::object&, const mcp::principal&) {
    co_return std::string();
}

void data_source::walk_ended(const std::string&) {}

std::shared_ptr<const void> data_source::prepare(const boost::json::object&) const { return nullptr; }

}  // namespace candor::paging
