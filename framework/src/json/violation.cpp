// SPDX-License-Identifier: BSL-1.0
#include <candor/json/violation.hpp>

#include <stdexcept>

namespace candor::json {

std::string_view to_string(intake_code code) noexcept {
    switch (code) {
        case intake_code::input_too_large: return "INPUT_TOO_LARGE";
        case intake_code::invalid_json: return "INVALID_JSON";
        case intake_code::duplicate_key: return "DUPLICATE_KEY";
        case intake_code::non_finite_number: return "NON_FINITE_NUMBER";
        case intake_code::depth_limit: return "DEPTH_LIMIT";
        case intake_code::node_limit: return "NODE_LIMIT";
    }
    return "INVALID_JSON";
}

void throw_exception_from_error(const violation& v, const boost::source_location&) {
    throw std::invalid_argument(std::string(to_string(v.code)) + " at '" + v.path + "': " + v.message);
}

}  // namespace candor::json
