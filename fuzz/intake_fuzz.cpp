// Fuzzes the strict intake. The first two bytes choose the limits; the rest is the JSON text.
// Checked on every input: no crash, no hang, and these invariants —
//  * an accepted document is within its limits, and `measure` agrees with the intake;
//  * the guarded writer serializes it and the intake accepts the output as the same value;
//  * feeding the text in two chunks gives the same verdict as feeding it whole;
//  * scan() accepts everything parse() accepts, with no violations.
#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>

#include <cstdint>
#include <cstdlib>
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
