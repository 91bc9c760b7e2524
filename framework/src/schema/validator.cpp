// SPDX-License-Identifier: BSL-1.0
#include <candor/schema/validator.hpp>

#include "compile.hpp"
#include "evaluate.hpp"
#include "program.hpp"

#include <boost/throw_exception.hpp>

#include <stdexcept>

namespace candor::schema {

void throw_exception_from_error(const schema_error& e, const boost::source_location& loc) {
    boost::throw_exception(std::invalid_argument("schema refused at '" + e.keyword_location + "': " + e.message), loc);
}

boost::system::result<validator, schema_error> validator::compile(const boost::json::value& schema,
                                                                  const options& opts) {
    auto p = std::make_shared<detail::program>();
    p->schema = schema;
    p->opts = opts;
    auto r = detail::compile_program(*p);
    if (!r) return r.error();
    p->opts.resolve = nullptr;  // documents are loaded; do not keep the caller's resolver alive
    return validator(std::move(p));
}

validator::validator(const validator&) noexcept = default;
validator::validator(validator&&) noexcept = default;
validator& validator::operator=(const validator&) noexcept = default;
validator& validator::operator=(validator&&) noexcept = default;
validator::~validator() = default;

bool validator::is_valid(const boost::json::value& instance) const {
    detail::evaluator e(*program_, nullptr);
    bool ok = e.eval(program_->root, instance, nullptr);
    return ok && !e.aborted();
}

bool validator::validate(const boost::json::value& instance, candor::issue_list& out) const {
    const std::size_t before = out.size();
    detail::evaluator e(*program_, &out);
    bool ok = e.eval(program_->root, instance, nullptr);
    if (e.aborted()) {
        // Issues found after the cut (combinator summaries of cut branches) would mislead.
        out.resize(before);
        out.push_back(e.abort_issue());
        return false;
    }
    return ok;
}

const boost::json::value& validator::schema() const noexcept { return program_->schema; }

}  // namespace candor::schema
