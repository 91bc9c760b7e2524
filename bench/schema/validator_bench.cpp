// SPDX-License-Identifier: BSL-1.0
// Validating a typical ~300-byte tool-arguments object (nested filter array, enums, patterns,
// additionalProperties:false) against its compiled schema: Candor (Draft 2020-12) against
// valijson (Debian libvalijson-dev, draft-7 form of the same schema, its Boost.JSON adapter),
// in the same run. Run: scripts/bench --benchmark_filter=SchemaValidate
#define VALIJSON_USE_EXCEPTIONS 1

// GCC 12 at -O3 reports a false -Wrestrict inside valijson's json_pointer helpers (inlined
// std::string::replace); the baseline is third-party code we do not change.
#pragma GCC diagnostic ignored "-Wrestrict"

#include <candor/json/intake.hpp>
#include <candor/schema/validator.hpp>

#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace {

namespace bj = boost::json;

// Keywords common to 2020-12 and draft 7, so that both validators check exactly the same rules.
constexpr std::string_view schema_body = R"({
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 200},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "sort": {
      "type": "object",
      "properties": {
        "field": {"enum": ["price", "rating", "relevance", "created_at"]},
        "order": {"enum": ["asc", "desc"]}
      },
      "required": ["field"],
      "additionalProperties": false
    },
    "filters": {
      "type": "array",
      "maxItems": 10,
      "items": {
        "type": "object",
        "properties": {
          "field": {"type": "string", "pattern": "^[a-z_]{1,32}$"},
          "op": {"enum": ["eq", "ne", "lt", "lte", "gt", "gte", "in"]},
          "value": {"type": ["string", "number", "boolean"]}
        },
        "required": ["field", "op", "value"],
        "additionalProperties": false
      }
    },
    "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
    "include_out_of_stock": {"type": "boolean"},
    "session_id": {"type": "string", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"}
  },
  "required": ["query"],
  "additionalProperties": false
})";

/// The schema in the given dialect (the body is the same; only `$schema` differs).
bj::value schema_in(std::string_view dialect);

// 314 bytes.
constexpr std::string_view arguments =
    R"({"query":"wireless headphones","limit":20,"sort":{"field":"price","order":"asc"},"filters":[{"field":"brand","op":"eq","value":"Sony"},{"field":"price","op":"lt","value":150},{"field":"rating","op":"gte","value":4}],"currency":"EUR","include_out_of_stock":false,"session_id":"3f2b9c1e-8a7d-4e21-9b3c-5d6e7f8a9b0c"})";

// The same object with three mistakes (wrong type, unknown member, enum).
constexpr std::string_view bad_arguments =
    R"({"query":"wireless headphones","limit":"20","sort":{"field":"cost","order":"asc"},"filters":[{"field":"brand","op":"eq","value":"Sony"},{"field":"price","op":"lt","value":150,"unit":"EUR"}],"currency":"EUR"})";

bj::value parse(std::string_view text) {
    auto doc = candor::json::parse(text);
    if (!doc) throw std::runtime_error("benchmark input is not acceptable JSON");
    return bj::value(doc->root(), bj::storage_ptr());
}

bj::value schema_in(std::string_view dialect) {
    bj::value v = parse(schema_body);
    v.as_object()["$schema"] = dialect;
    return v;
}

const candor::schema::validator& candor_validator() {
    static const auto v =
        candor::schema::validator::compile(schema_in("https://json-schema.org/draft/2020-12/schema")).value();
    return v;
}

struct valijson_state {
    bj::value schema_doc = schema_in("http://json-schema.org/draft-07/schema#");
    valijson::Schema schema;
    valijson_state() {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        valijson::adapters::BoostJsonAdapter adapter(schema_doc);
        parser.populateSchema(adapter, schema);
    }
};

const valijson_state& valijson_schema() {
    static const valijson_state s;
    return s;
}

void BM_SchemaValidate_Candor(benchmark::State& state) {
    const auto& v = candor_validator();
    const bj::value instance = parse(arguments);
    if (!v.is_valid(instance)) state.SkipWithError("candor rejects the benchmark arguments");
    for (auto _ : state) benchmark::DoNotOptimize(v.is_valid(instance));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * arguments.size()));
}
BENCHMARK(BM_SchemaValidate_Candor);

void BM_SchemaValidate_Valijson(benchmark::State& state) {
    const auto& s = valijson_schema();
    const bj::value instance = parse(arguments);
    valijson::Validator validator;
    {
        valijson::adapters::BoostJsonAdapter target(instance);
        if (!validator.validate(s.schema, target, nullptr))
            state.SkipWithError("valijson rejects the benchmark arguments");
    }
    for (auto _ : state) {
        valijson::adapters::BoostJsonAdapter target(instance);
        benchmark::DoNotOptimize(validator.validate(s.schema, target, nullptr));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * arguments.size()));
}
BENCHMARK(BM_SchemaValidate_Valijson);

// The path a valid call takes in a server: validate() with an (unused) issue list.
void BM_SchemaValidateWithIssueList_Candor(benchmark::State& state) {
    const auto& v = candor_validator();
    const bj::value instance = parse(arguments);
    candor::issue_list issues;
    for (auto _ : state) {
        benchmark::DoNotOptimize(v.validate(instance, issues));
        issues.clear();
    }
}
BENCHMARK(BM_SchemaValidateWithIssueList_Candor);

// Rejection with every issue and its message built, against valijson collecting its results.
void BM_SchemaReject_Candor(benchmark::State& state) {
    const auto& v = candor_validator();
    const bj::value instance = parse(bad_arguments);
    for (auto _ : state) {
        candor::issue_list issues;
        benchmark::DoNotOptimize(v.validate(instance, issues));
        if (issues.size() != 3) state.SkipWithError("expected three issues");
    }
}
BENCHMARK(BM_SchemaReject_Candor);

void BM_SchemaReject_Valijson(benchmark::State& state) {
    const auto& s = valijson_schema();
    const bj::value instance = parse(bad_arguments);
    valijson::Validator validator;
    for (auto _ : state) {
        valijson::ValidationResults results;
        valijson::adapters::BoostJsonAdapter target(instance);
        benchmark::DoNotOptimize(validator.validate(s.schema, target, &results));
    }
}
BENCHMARK(BM_SchemaReject_Valijson);

void BM_SchemaCompile_Candor(benchmark::State& state) {
    const bj::value schema = schema_in("https://json-schema.org/draft/2020-12/schema");
    for (auto _ : state) benchmark::DoNotOptimize(candor::schema::validator::compile(schema));
}
BENCHMARK(BM_SchemaCompile_Candor);

}  // namespace
