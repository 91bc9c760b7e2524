// SPDX-License-Identifier: BSL-1.0
// A typed contract check (budget → compiled schema → typed conversion) on a typical ~300-byte
// order draft, against the validator alone and against Boost.JSON's own Describe-based
// conversion (no constraints, no exact decimals), in the same run.
// Run: scripts/bench --benchmark_filter=ContractCheck
#include <candor/contract/contract.hpp>

#include <candor/json/intake.hpp>
#include <candor/schema/validator.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/value_to.hpp>

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace bench_contract {

using candor::contract::decimal;

BOOST_DEFINE_ENUM_CLASS(shipping, standard, express, pickup)

struct line {
    std::string sku;
    int quantity = 1;
    decimal unit_price;
};
BOOST_DESCRIBE_STRUCT(line, (), (sku, quantity, unit_price))
inline void describe_contract(candor::contract::spec<line>& s) {
    s.field(&line::sku).pattern("^[A-Z]{3}-[0-9]{4}$");
    s.field(&line::quantity).range(1, 1000);
    s.field(&line::unit_price).exclusive_minimum("0").max_digits(12).decimal_places(2);
}

struct order {
    std::string customer;
    std::vector<line> lines;
    shipping ship = shipping::standard;
    std::string note;
};
BOOST_DESCRIBE_STRUCT(order, (), (customer, lines, ship, note))
inline void describe_contract(candor::contract::spec<order>& s) {
    s.field(&order::customer).length(1, 64);
    s.field(&order::lines).items(1, 20);
    s.field(&order::note).max_length(200);
}

// The same shape for Boost.JSON's conversion (which knows no decimal).
struct plain_line {
    std::string sku;
    int quantity = 1;
    double unit_price = 0;
};
BOOST_DESCRIBE_STRUCT(plain_line, (), (sku, quantity, unit_price))
struct plain_order {
    std::string customer;
    std::vector<plain_line> lines;
    shipping ship = shipping::standard;
    std::string note;
};
BOOST_DESCRIBE_STRUCT(plain_order, (), (customer, lines, ship, note))

}  // namespace bench_contract

namespace {

const std::string arguments =
    R"({"customer":"ACME Industrial Supplies","ship":"express","note":"deliver to loading dock B before noon","lines":[{"sku":"ABC-0001","quantity":2,"unit_price":19.99},{"sku":"XYZ-9999","quantity":10,"unit_price":0.10},{"sku":"QRS-1234","quantity":1,"unit_price":1250.00},{"sku":"LMN-5678","quantity":3,"unit_price":7.25}]})";

const candor::json::document& doc() {
    static const candor::json::document d = candor::json::parse(arguments).value();
    return d;
}

void BM_ContractCheck_Candor(benchmark::State& state) {
    const candor::contract::contract<bench_contract::order> c{"order/1"};
    const auto& d = doc();
    (void)d.number_text(d.root());  // index the numbers once, as a server's first use would
    for (auto _ : state) {
        auto r = c.check(d.root(), &d);
        if (!r) state.SkipWithError("rejected");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_ContractCheck_Candor);

void BM_ContractCheck_ValidatorOnly(benchmark::State& state) {
    const candor::contract::contract<bench_contract::order> c{"order/1"};
    const auto v = candor::schema::validator::compile(c.schema()).value();
    const auto& d = doc();
    for (auto _ : state) {
        bool ok = v.is_valid(d.root());
        if (!ok) state.SkipWithError("rejected");
        benchmark::DoNotOptimize(ok);
    }
}
BENCHMARK(BM_ContractCheck_ValidatorOnly);

void BM_ContractCheck_BoostValueTo(benchmark::State& state) {
    const auto& d = doc();
    for (auto _ : state) {
        auto r = boost::json::try_value_to<bench_contract::plain_order>(d.root());
        if (!r) state.SkipWithError("rejected");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_ContractCheck_BoostValueTo);

}  // namespace
