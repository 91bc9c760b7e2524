// SPDX-License-Identifier: BSL-1.0
#include <candor/jsonrpc/message.hpp>

#include <stdexcept>

namespace candor::jsonrpc {

boost::json::value request_id::to_json() const {
    if (const auto* s = std::get_if<std::string>(&v_)) return boost::json::value(*s);
    return boost::json::value(std::get<std::int64_t>(v_));
}

error_object error_object::make(error_code c, std::string text, std::optional<boost::json::value> data) {
    return error_object{static_cast<int>(c), std::move(text), std::move(data)};
}

void throw_exception_from_error(const rejection& r, const boost::source_location&) {
    throw std::logic_error("JSON-RPC message was rejected: " + r.error.message);
}

void throw_exception_from_error(const error_object& e, const boost::source_location&) {
    throw std::logic_error("JSON-RPC error " + std::to_string(e.code) + ": " + e.message);
}

boost::json::object to_json(const json::violation& v) {
    boost::json::object o;
    o["code"] = json::to_string(v.code);
    o["path"] = v.path;
    o["message"] = v.message;
    if (v.limit) o["limit"] = *v.limit;
    if (v.offset) o["offset"] = *v.offset;
    return o;
}

}  // namespace candor::jsonrpc
