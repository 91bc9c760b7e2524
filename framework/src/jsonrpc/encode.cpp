// SPDX-License-Identifier: BSL-1.0
#include <candor/jsonrpc/encode.hpp>

namespace candor::jsonrpc {

namespace {

boost::json::object base() {
    boost::json::object o;
    o["jsonrpc"] = "2.0";
    return o;
}

boost::json::object error_to_json(const error_object& e, bool with_data) {
    boost::json::object o;
    o["code"] = e.code;
    o["message"] = e.message;
    if (with_data && e.data) o["data"] = *e.data;
    return o;
}

}  // namespace

boost::system::result<std::string, json::write_error> open_result(const request_id& id, std::size_t reserve) {
    std::string out;
    out.reserve(reserve + 48);
    out = R"({"jsonrpc":"2.0","id":)";
    if (auto r = json::write(id.to_json(), out); !r) return r.error();
    out += R"(,"result":)";
    return out;
}

boost::system::result<std::string, json::write_error> encode_result(const request_id& id,
                                                                    const boost::json::value& result) {
    // Written around `result` rather than copying it into a message object.
    auto out = open_result(id);
    if (!out) return out.error();
    // One level less than the whole message may have, as before.
    if (auto r = json::write(result, *out, 511); !r) return r.error();
    *out += '}';
    return out;
}

std::string encode_error(const std::optional<request_id>& id, const error_object& error) {
    auto o = base();
    o["id"] = id ? id->to_json() : boost::json::value(nullptr);
    o["error"] = error_to_json(error, true);
    if (auto text = json::to_string(o)) return std::move(*text);
    // The data could not be written (it echoes something unwritable); the code still can.
    o["error"] = error_to_json(error, false);
    o["error"].as_object()["message"] = "error details could not be serialized";
    return json::to_string(o).value();
}

boost::system::result<std::string, json::write_error> encode_notification(std::string_view method,
                                                                          const boost::json::object& params) {
    auto o = base();
    o["method"] = method;
    o["params"] = params;
    return json::to_string(o);
}

boost::system::result<std::string, json::write_error> encode_request(const request_id& id, std::string_view method,
                                                                     const boost::json::object& params) {
    auto o = base();
    o["id"] = id.to_json();
    o["method"] = method;
    o["params"] = params;
    return json::to_string(o);
}

}  // namespace candor::jsonrpc
