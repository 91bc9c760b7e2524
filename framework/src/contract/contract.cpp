// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/contract.hpp>

#include <candor/schema/validator.hpp>

#include <stdexcept>

namespace candor::contract {

namespace detail {

struct core::compiled {
    candor::schema::validator validator;
};

core::~core() = default;

std::shared_ptr<const core> core::make(boost::json::value schema, std::string version, const contract_options& opts,
                                       candor::schema::schema_error* error) {
    candor::schema::options vopts;
    vopts.format_assertion = opts.format_assertion;
    vopts.max_issues = opts.max_issues;
    auto v = candor::schema::validator::compile(schema, vopts);
    if (!v) {
        if (error) {
            *error = v.error();
            return nullptr;
        }
        throw std::logic_error("candor::contract: the generated schema does not compile at '" +
                               v.error().keyword_location + "': " + v.error().message);
    }
    std::shared_ptr<core> c(new core());
    c->schema_ = std::move(schema);
    c->version_ = std::move(version);
    c->opts_ = opts;
    c->compiled_ = std::make_unique<compiled>(compiled{std::move(*v)});
    return c;
}

bool core::check_structure(const boost::json::value& arguments, candor::issue_list& out) const {
    // Budget first: the validator and the converter may then rely on the bounds.
    if (auto over = over_budget(arguments, opts_.budget)) {
        out.push_back(std::move(*over));
        return false;
    }
    return check_schema(arguments, out);
}

bool core::check_schema(const boost::json::value& arguments, candor::issue_list& out) const {
    return compiled_->validator.validate(arguments, out);
}

}  // namespace detail

candor::issue intake_issue(const candor::json::violation& v) {
    candor::issue i;
    i.code = std::string(candor::json::to_string(v.code));
    i.path = v.path;
    i.message = v.message;
    i.repairable = true;
    i.where = candor::layer::intake;
    if (v.limit) i.details["limit"] = *v.limit;
    return i;
}

std::optional<candor::issue> over_budget(const boost::json::value& arguments, const candor::json::limits& budget) {
    auto shape = candor::json::measure(arguments, budget);
    if (shape) return std::nullopt;
    return intake_issue(shape.error());
}

}  // namespace candor::contract
