// SPDX-License-Identifier: BSL-1.0
// Fuzzes the strict intake. The first two bytes choose the limits; the rest is the JSON text.
// Checked on every input: no crash, no hang, and these invariants —
//  * an accepted document is within its limits, and `measure` agrees with the intake;
//  * the guarded writer serializes it and the intake accepts the output as the same value;
//  * feeding the text in two chunks gives the same verdict as feeding it whole;
//  * scan() accepts everything parse() accepts, with no violations;
//  * the string writer, given the raw text: valid UTF-8 comes back as itself through the
//    intake, in the same bytes from both escaping paths (SSSE3 and SSE2); anything else is
//    refused with the output left as it was.
#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {
void check(bool ok) {
    if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    candor::json::limits lim;
    lim.max_depth = data[0] % 80;
    lim.max_nodes = 1 + static_cast<std::size_t>(data[1]) * 16;
    lim.max_bytes = 1 << 20;
    const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

    {
        using candor::json::detail::escaper;
        std::string fast = "x";
        std::string middle = "x";
        std::string plain = "x";
        candor::json::detail::use_escaper(escaper::avx2);
        const bool fast_ok = candor::json::write_string(text, fast).has_value();
        candor::json::detail::use_escaper(escaper::ssse3);
        const bool middle_ok = candor::json::write_string(text, middle).has_value();
        candor::json::detail::use_escaper(escaper::portable);
        const bool plain_ok = candor::json::write_string(text, plain).has_value();
        candor::json::detail::use_escaper(escaper::avx2);
        check(fast_ok == plain_ok && fast == plain && middle_ok == plain_ok && middle == plain);
        if (!fast_ok) {
            check(fast == "x");
        } else {
            candor::json::limits any;
            any.max_bytes = fast.size() + 1;
            auto back = candor::json::parse(std::string_view(fast).substr(1), any);
            check(back.has_value() && back->root().is_string() && back->root().get_string() == text);
        }
    }

    auto whole = candor::json::parse(text, lim);

    candor::json::parser p(lim);
    const std::size_t cut = text.empty() ? 0 : data[1] % (text.size() + 1);
    p.write(text.substr(0, cut));
    p.write(text.substr(cut));
    auto chunked = p.finish();
    check(whole.has_value() == chunked.has_value());
    if (!whole) {
        check(whole.error().code == chunked.error().code);
        check(whole.error().path == chunked.error().path);
        return 0;
    }
    check(whole->depth() <= lim.max_depth);
    check(whole->nodes() <= lim.max_nodes);
    auto shape = candor::json::measure(whole->root(), lim);
    check(shape.has_value() && shape->depth == whole->depth() && shape->nodes == whole->nodes());

    auto out = candor::json::to_string(whole->root());
    check(out.has_value());
    candor::json::limits relaxed = lim;
    relaxed.max_bytes = out->size() + 1;
    auto again = candor::json::parse(*out, relaxed);
    check(again.has_value() && again->root() == whole->root());

    auto scanned = candor::json::scan(text, lim);
    check(scanned.has_value() && scanned->violations.empty());
    return 0;
}
