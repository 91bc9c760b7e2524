// SPDX-License-Identifier: BSL-1.0
#include <candor/jsonrpc/intake.hpp>

#include <candor/jsonrpc/encode.hpp>

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace rpc = candor::jsonrpc;

namespace {

const candor::json::limits server_limits{};

rpc::rejection refused(std::string_view text, const candor::json::limits& lim = server_limits) {
    auto r = rpc::read_message(text, lim);
    EXPECT_FALSE(r) << "accepted: " << text;
    if (r) return {};
    return r.error();
}

std::string data_code(const rpc::rejection& r) {
    if (!r.error.data) return "<none>";
    if (const auto* o = r.error.data->if_object())
        if (const auto* c = o->if_contains("code"))
            if (const auto* s = c->if_string()) return std::string(*s);
    return "<none>";
}

}  // namespace

TEST(JsonRpcIntake, ReadsRequestWithParams) {
    auto r =
        rpc::read_message(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}})", server_limits);
    ASSERT_TRUE(r);
    const auto* req = std::get_if<rpc::request>(&r.value().msg);
    ASSERT_NE(req, nullptr);
    EXPECT_EQ(req->id, rpc::request_id(7));
    EXPECT_EQ(req->method, "tools/list");
    ASSERT_NE(req->params, nullptr);
    EXPECT_TRUE(req->params->contains("cursor"));
}

TEST(JsonRpcIntake, ReadsStringIdAndNotification) {
    auto r = rpc::read_message(R"({"jsonrpc":"2.0","id":"a-1","method":"ping"})", server_limits);
    ASSERT_TRUE(r);
    EXPECT_EQ(std::get<rpc::request>(r.value().msg).id, rpc::request_id("a-1"));
    auto n = rpc::read_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", server_limits);
    ASSERT_TRUE(n);
    EXPECT_TRUE(std::holds_alternative<rpc::notification>(n.value().msg));
}

TEST(JsonRpcIntake, ReadsResponses) {
    auto r = rpc::read_message(R"({"jsonrpc":"2.0","id":3,"result":{}})", server_limits);
    ASSERT_TRUE(r);
    EXPECT_NE(std::get<rpc::response>(r.value().msg).result, nullptr);
    auto e = rpc::read_message(R"({"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}})", server_limits);
    ASSERT_TRUE(e);
    ASSERT_TRUE(std::get<rpc::response>(e.value().msg).error);
    EXPECT_EQ(std::get<rpc::response>(e.value().msg).error->code, -1);
}

TEST(JsonRpcIntake, ErrorResponseWithNullIdIsAResponseNotAnInvalidRequest) {
    auto r = rpc::read_message(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})", server_limits);
    ASSERT_TRUE(r);
    const auto& resp = std::get<rpc::response>(r.value().msg);
    EXPECT_FALSE(resp.id);
    ASSERT_TRUE(resp.error);
    EXPECT_EQ(resp.error->code, -32700);
}

TEST(JsonRpcIntake, InvalidJsonIsParseErrorWithNullIdAndIntakeCode) {
    auto r = refused(R"({"jsonrpc":"2.0","id":1,"method":"ping")");
    EXPECT_EQ(r.error.code, -32700);
    EXPECT_FALSE(r.id);
    EXPECT_EQ(data_code(r), "INVALID_JSON");
}

TEST(JsonRpcIntake, ResourceLimitStopsAtOnceWithNullId) {
    candor::json::limits tight;
    tight.max_depth = 3;
    auto r = refused(R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":{"b":{}}}})", tight);
    EXPECT_EQ(r.error.code, -32700);
    EXPECT_FALSE(r.id);
    EXPECT_EQ(data_code(r), "DEPTH_LIMIT");
    tight = {};
    tight.max_bytes = 10;
    EXPECT_EQ(data_code(refused(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", tight)), "INPUT_TOO_LARGE");
}

TEST(JsonRpcIntake, DuplicateMethodIsRefusedWithTheId) {
    auto r = refused(R"({"jsonrpc":"2.0","id":5,"method":"ping","method":"tools/list"})");
    EXPECT_EQ(r.error.code, -32700);
    EXPECT_EQ(data_code(r), "DUPLICATE_KEY");
    ASSERT_TRUE(r.id);
    EXPECT_EQ(*r.id, rpc::request_id(5));
}

TEST(JsonRpcIntake, DuplicateIdIsRefusedWithNullId) {
    auto r = refused(R"({"jsonrpc":"2.0","id":5,"id":6,"method":"ping"})");
    EXPECT_EQ(r.error.code, -32700);
    EXPECT_EQ(data_code(r), "DUPLICATE_KEY");
    EXPECT_FALSE(r.id);
}

TEST(JsonRpcIntake, ViolationInsideParamsIsHandedToTheMethodWithRelativePath) {
    auto r = rpc::read_message(
        R"({"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"limit":1,"limit":2,"x":1e999},"name":"t"},"id":9})",
        server_limits);
    ASSERT_TRUE(r);
    ASSERT_EQ(r.value().param_violations.size(), 2u);
    EXPECT_EQ(r.value().param_violations.at(0).path, "/arguments/limit");
    EXPECT_EQ(r.value().param_violations.at(0).code, candor::json::intake_code::duplicate_key);
    EXPECT_EQ(r.value().param_violations.at(1).path, "/arguments/x");
    EXPECT_EQ(r.value().param_violations.at(1).code, candor::json::intake_code::non_finite_number);
    EXPECT_EQ(std::get<rpc::request>(r.value().msg).id, rpc::request_id(9));
}

TEST(JsonRpcIntake, NonFiniteIdIsRefusedWithNullId) {
    auto r = refused(R"({"jsonrpc":"2.0","id":1e999,"method":"ping"})");
    EXPECT_EQ(r.error.code, -32700);
    EXPECT_EQ(data_code(r), "NON_FINITE_NUMBER");
    EXPECT_FALSE(r.id);
}

TEST(JsonRpcIntake, BatchesAreRefused) {
    auto r = refused(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
    EXPECT_EQ(r.error.code, -32600);
    EXPECT_FALSE(r.id);
}

TEST(JsonRpcIntake, NullIdIsInvalidRequest) {
    auto r = refused(R"({"jsonrpc":"2.0","id":null,"method":"ping"})");
    EXPECT_EQ(r.error.code, -32600);
    EXPECT_FALSE(r.id);
}

TEST(JsonRpcIntake, FractionalOrHugeIdIsInvalidRequest) {
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})").error.code, -32600);
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"})").error.code, -32600);
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":{},"method":"ping"})").error.code, -32600);
}

TEST(JsonRpcIntake, WrongVersionIsInvalidRequestWithTheId) {
    auto r = refused(R"({"jsonrpc":"1.0","id":2,"method":"ping"})");
    EXPECT_EQ(r.error.code, -32600);
    ASSERT_TRUE(r.id);
    EXPECT_EQ(*r.id, rpc::request_id(2));
    EXPECT_EQ(refused(R"({"id":2,"method":"ping"})").error.code, -32600);
}

TEST(JsonRpcIntake, UnknownMemberIsInvalidRequest) {
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"method":"ping","extra":1})").error.code, -32600);
}

TEST(JsonRpcIntake, NonObjectMessageIsInvalidRequest) {
    EXPECT_EQ(refused(R"("ping")").error.code, -32600);
    EXPECT_EQ(refused(R"(42)").error.code, -32600);
}

TEST(JsonRpcIntake, MethodMustBeANonEmptyString) {
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"method":5})").error.code, -32600);
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"method":""})").error.code, -32600);
}

TEST(JsonRpcIntake, PositionalParamsAreInvalidParams) {
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":[1]})").error.code, -32602);
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":3})").error.code, -32600);
}

TEST(JsonRpcIntake, ResponseNeedsExactlyOneOfResultAndError) {
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2})").error.code, -32600);
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"result":1,"error":{"code":1,"message":""}})").error.code, -32600);
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"error":{"code":"x","message":""}})").error.code, -32600);
}

TEST(JsonRpcIntake, RequestCannotCarryResult) {
    EXPECT_EQ(refused(R"({"jsonrpc":"2.0","id":2,"method":"ping","result":1})").error.code, -32600);
}

TEST(JsonRpcEncode, ErrorWithUnknownIdCarriesNull) {
    auto text = rpc::encode_error(std::nullopt, rpc::error_object::make(rpc::error_code::parse_error, "bad"));
    EXPECT_EQ(text, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})");
}

TEST(JsonRpcEncode, ResultWithNonFiniteNumberIsRefused) {
    boost::json::object o;
    o["x"] = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(rpc::encode_result(rpc::request_id("a"), o));
}

TEST(JsonRpcEncode, ResultIsWrittenInsideTheMessage) {
    const boost::json::object result{{"content", boost::json::array{"x\"y"}}, {"isError", false}};
    auto text = rpc::encode_result(rpc::request_id(7), result);
    ASSERT_TRUE(text);
    EXPECT_EQ(*text, R"({"jsonrpc":"2.0","id":7,"result":{"content":["x\"y"],"isError":false}})");
    auto named = rpc::encode_result(rpc::request_id("r-1"), boost::json::array{});
    ASSERT_TRUE(named);
    EXPECT_EQ(*named, R"({"jsonrpc":"2.0","id":"r-1","result":[]})");
}

TEST(JsonRpcEncode, ResultDepthCountsTheMessageLevel) {
    // The whole message may be 512 containers deep: its own object and 511 in the result.
    auto nested = [](int depth) {
        boost::json::value v = boost::json::array{};
        boost::json::value* cur = &v;
        for (int i = 1; i < depth; ++i) {
            cur->as_array().emplace_back(boost::json::array{});
            cur = &cur->as_array().back();
        }
        return v;
    };
    EXPECT_TRUE(rpc::encode_result(rpc::request_id(1), nested(511)));
    auto deep = rpc::encode_result(rpc::request_id(1), nested(512));
    ASSERT_FALSE(deep);
    EXPECT_EQ(deep.error(), candor::json::write_error::too_deep);
}

TEST(JsonRpcEncode, ErrorDataThatCannotBeWrittenIsDropped) {
    auto e = rpc::error_object::make(rpc::error_code::internal_error, "x",
                                     boost::json::value(std::numeric_limits<double>::quiet_NaN()));
    auto text = rpc::encode_error(rpc::request_id(1), e);
    EXPECT_EQ(boost::json::parse(text).at("error").at("code"), -32603);
    EXPECT_EQ(text.find("data"), std::string::npos);
}
