// SPDX-License-Identifier: BSL-1.0
#include "commands/intake.hpp"

#include "commands/input.hpp"

#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>

#include <boost/json/object.hpp>

#include <iostream>
#include <string>
#include <string_view>

namespace candor::cli {

namespace {

constexpr std::string_view help = R"(usage: candor intake [--max-bytes N] [--max-depth N] [--max-nodes N] [FILE|-]

Checks one JSON text (FILE, or stdin when FILE is '-' or absent) with Candor's strict intake
and prints one line of JSON:
  accepted: {"ok":true,"depth":D,"nodes":N}
  rejected: {"ok":false,"code":"...","path":"/json/pointer","message":"...",
             "limit":L (limit codes), "offset":B (INVALID_JSON)}
Exit status: 0 accepted, 1 rejected, 2 usage error.

Limits (defaults are the framework's server-wide message limits):
  --max-bytes N   raw size in bytes               (default 4194304)
  --max-depth N   container depth, 0..512          (default 64; root container = 1)
  --max-nodes N   values, containers included      (default 1000000)
)";

int usage_error(std::string_view message) {
    std::cerr << "candor intake: " << message << "\n(see 'candor intake --help')\n";
    return 2;
}

void print(const boost::json::object& o) {
    // Our own output is made of values we built; write() cannot fail on it.
    std::cout << json::to_string(o).value() << '\n';
}

}  // namespace

int run_intake(int argc, char** argv) {
    json::limits lim;
    std::string path = "-";
    bool have_path = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << help;
            return 0;
        }
        auto take = [&](std::size_t& slot) -> bool {
            if (i + 1 >= argc) return false;
            auto v = parse_size(argv[++i]);
            if (!v) return false;
            slot = *v;
            return true;
        };
        if (arg == "--max-bytes") {
            if (!take(lim.max_bytes)) return usage_error("--max-bytes needs a non-negative integer");
        } else if (arg == "--max-depth") {
            if (!take(lim.max_depth)) return usage_error("--max-depth needs a non-negative integer");
            if (lim.max_depth > json::depth_ceiling)
                return usage_error("--max-depth " + std::to_string(lim.max_depth) + " is above the hard ceiling of " +
                                   std::to_string(json::depth_ceiling));
        } else if (arg == "--max-nodes") {
            if (!take(lim.max_nodes)) return usage_error("--max-nodes needs a non-negative integer");
        } else if (arg.size() > 1 && arg.front() == '-') {
            return usage_error("unknown option '" + std::string(arg) + "'");
        } else if (have_path) {
            return usage_error("only one input may be given");
        } else {
            path = arg;
            have_path = true;
        }
    }

    std::string error;
    auto in = read_bounded(path, lim.max_bytes, error);
    if (!in) return usage_error(error);

    // More than max_bytes is rejected without parsing (and without reading the rest).
    auto doc = in->truncated ? boost::system::result<json::document, json::violation>(
                                   json::violation{json::intake_code::input_too_large,
                                                   "",
                                                   "input is larger than " + std::to_string(lim.max_bytes) + " bytes",
                                                   lim.max_bytes,
                                                   {}})
                             : json::parse(in->text, lim);
    if (doc) {
        print({{"ok", true}, {"depth", doc->depth()}, {"nodes", doc->nodes()}});
        return 0;
    }
    const auto& v = doc.error();
    boost::json::object out{{"ok", false}, {"code", json::to_string(v.code)}, {"path", v.path}};
    if (v.limit) out["limit"] = *v.limit;
    if (v.offset) out["offset"] = *v.offset;
    out["message"] = v.message;
    print(out);
    return 1;
}

}  // namespace candor::cli
