// SPDX-License-Identifier: BSL-1.0
#include <candor/error/issue.hpp>

#include <stdexcept>

namespace candor {

std::string_view to_string(layer l) noexcept {
    switch (l) {
        case layer::intake: return "intake";
        case layer::contract: return "contract";
        case layer::business: return "business";
        case layer::external: return "external";
    }
    return "contract";
}

issue make_issue(layer where, std::string_view code, std::string path, std::string message, bool repairable,
                 boost::json::object details) {
    issue i;
    i.code = std::string(code);
    i.path = std::move(path);
    i.message = std::move(message);
    i.repairable = repairable;
    i.where = where;
    i.details = std::move(details);
    return i;
}

void throw_exception_from_error(const issue_list& issues, const boost::source_location&) {
    if (issues.empty()) throw std::invalid_argument("rejected with no issue");
    throw std::invalid_argument(issues.front().code + " at '" + issues.front().path + "': " + issues.front().message);
}

}  // namespace candor
