// SPDX-License-Identifier: BSL-1.0
#include "commands/validate.hpp"

#include "commands/input.hpp"

#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>
#include <candor/schema/validator.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace candor::cli {

namespace {

namespace bj = boost::json;

constexpr std::string_view help =
    R"(usage: candor validate --schema SCHEMA.json [--remote URL_PREFIX=DIR]... [--format-assertion] [--jsonl] [INSTANCE|-]

Validates JSON instances against a JSON Schema (Draft 2020-12) and prints one line of JSON
per instance:
  {"valid":true}
  {"valid":false,"issues":[{"code":"...","path":"/json/pointer","keyword":"/schema/pointer","message":"..."}]}
All JSON (schema, remote documents, instances) goes through the strict intake; an instance
the intake refuses is invalid with the intake's code (e.g. DUPLICATE_KEY).

  --schema FILE          the schema (required)
  --remote PREFIX=DIR    serve references to PREFIX... from files under DIR (repeatable);
                         nothing is ever fetched from the network
  --format-assertion     treat `format` as an assertion (FORMAT_MISMATCH)
  --jsonl                every input line is one instance; one verdict line each, in order
  INSTANCE               file to read (default: stdin, also '-')

Exit status: 0 all valid, 1 some instance invalid, 2 usage error or unusable schema (the
reason on stderr and as {"error":"...","message":"..."} on stdout).
)";

void print(const bj::value& v) {
    // Our own output is made of values we built from valid UTF-8; write() cannot fail on it.
    std::cout << json::to_string(v).value() << '\n';
}

int fail(std::string_view code, const std::string& message) {
    std::cerr << "candor validate: " << message << "\n";
    print(bj::object{{"error", code}, {"message", message}});
    return 2;
}

struct remote {
    std::string prefix;
    std::string dir;
};

/// A document from --remote mappings: URL prefix replaced by a directory; ".." refused so
/// that a schema cannot reach outside the directory it was given.
std::optional<bj::value> load_remote(const std::vector<remote>& remotes, std::string_view uri) {
    for (const auto& r : remotes) {
        if (uri.substr(0, r.prefix.size()) != r.prefix) continue;
        std::string_view rest = uri.substr(r.prefix.size());
        if (rest.find("..") != std::string_view::npos || rest.find('?') != std::string_view::npos) return std::nullopt;
        std::string error;
        json::limits lim;
        auto in = read_bounded(r.dir + "/" + std::string(rest), lim.max_bytes, error);
        if (!in || in->truncated) return std::nullopt;
        auto doc = json::parse(in->text, lim);
        if (!doc) return std::nullopt;
        return bj::value(doc->root(), bj::storage_ptr());
    }
    return std::nullopt;
}

bj::object verdict_for_violation(const json::violation& v) {
    bj::object is{{"code", json::to_string(v.code)}, {"path", v.path}, {"keyword", ""}, {"message", v.message}};
    return bj::object{{"valid", false}, {"issues", bj::array{is}}};
}

/// One instance text -> its verdict line; returns whether it was valid.
bool judge(const schema::validator& validator, std::string_view text, bool truncated, std::size_t max_bytes) {
    if (truncated) {
        print(verdict_for_violation({json::intake_code::input_too_large,
                                     "",
                                     "input is larger than " + std::to_string(max_bytes) + " bytes",
                                     max_bytes,
                                     {}}));
        return false;
    }
    auto doc = json::parse(text);
    if (!doc) {
        print(verdict_for_violation(doc.error()));
        return false;
    }
    candor::issue_list issues;
    if (validator.validate(doc->root(), issues)) {
        print(bj::object{{"valid", true}});
        return true;
    }
    bj::array list;
    for (const auto& i : issues)
        list.push_back(bj::object{{"code", i.code}, {"path", i.path}, {"keyword", i.keyword}, {"message", i.message}});
    print(bj::object{{"valid", false}, {"issues", std::move(list)}});
    return false;
}

/// Reads one line (without its '\n') keeping at most `bound` + 1 bytes of it.
bool read_line(std::FILE* f, std::size_t bound, std::string& line, bool& truncated) {
    line.clear();
    truncated = false;
    int c;
    bool any = false;
    while ((c = std::fgetc(f)) != EOF) {
        any = true;
        if (c == '\n') return true;
        if (line.size() <= bound) line.push_back(static_cast<char>(c));
        else truncated = true;
    }
    if (line.size() > bound) truncated = true;
    return any;
}

}  // namespace

int run_validate(int argc, char** argv) {
    std::string schema_path, instance_path = "-";
    bool have_instance = false, jsonl = false;
    std::vector<remote> remotes;
    schema::options opts;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << help;
            return 0;
        }
        if (arg == "--schema") {
            if (i + 1 >= argc) return fail("USAGE", "--schema needs a file");
            schema_path = argv[++i];
        } else if (arg == "--remote") {
            if (i + 1 >= argc) return fail("USAGE", "--remote needs URL_PREFIX=DIR");
            std::string_view spec = argv[++i];
            auto eq = spec.rfind('=');
            if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size())
                return fail("USAGE", "--remote needs URL_PREFIX=DIR, got '" + std::string(spec) + "'");
            remotes.push_back({std::string(spec.substr(0, eq)), std::string(spec.substr(eq + 1))});
        } else if (arg == "--format-assertion") {
            opts.format_assertion = true;
        } else if (arg == "--jsonl") {
            jsonl = true;
        } else if (arg.size() > 1 && arg.front() == '-') {
            return fail("USAGE", "unknown option '" + std::string(arg) + "' (see 'candor validate --help')");
        } else if (have_instance) {
            return fail("USAGE", "only one instance file may be given");
        } else {
            instance_path = arg;
            have_instance = true;
        }
    }
    if (schema_path.empty()) return fail("USAGE", "--schema is required (see 'candor validate --help')");

    const json::limits lim;
    std::string error;
    auto schema_text = read_bounded(schema_path, lim.max_bytes, error);
    if (!schema_text) return fail("USAGE", error);
    if (schema_text->truncated)
        return fail("INPUT_TOO_LARGE",
                    "schema '" + schema_path + "' is larger than " + std::to_string(lim.max_bytes) + " bytes");
    auto schema_doc = json::parse(schema_text->text, lim);
    if (!schema_doc)
        return fail(json::to_string(schema_doc.error().code),
                    "schema '" + schema_path + "' is not acceptable JSON: " + schema_doc.error().message);
    if (!remotes.empty()) opts.resolve = [&remotes](std::string_view uri) { return load_remote(remotes, uri); };
    auto validator = schema::validator::compile(schema_doc->root(), opts);
    if (!validator) {
        const auto& e = validator.error();
        return fail("INVALID_SCHEMA",
                    "schema '" + schema_path + "' refused at '" + e.keyword_location + "': " + e.message);
    }

    if (!jsonl) {
        auto in = read_bounded(instance_path, lim.max_bytes, error);
        if (!in) return fail("USAGE", error);
        return judge(*validator, in->text, in->truncated, lim.max_bytes) ? 0 : 1;
    }

    std::FILE* f = stdin;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> owned(nullptr, &std::fclose);
    if (instance_path != "-") {
        f = std::fopen(instance_path.c_str(), "rb");
        if (!f) return fail("USAGE", "cannot open '" + instance_path + "'");
        owned.reset(f);
    }
    bool all_valid = true;
    std::string line;
    bool truncated = false;
    while (read_line(f, lim.max_bytes, line, truncated)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!judge(*validator, line, truncated, lim.max_bytes)) all_valid = false;
    }
    std::cout.flush();
    return all_valid ? 0 : 1;
}

}  // namespace candor::cli
