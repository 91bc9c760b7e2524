// Temporary stub so that the published header links while the compiler is written.
#include <candor/schema/validator.hpp>

namespace candor::schema {
namespace detail {
struct program {
    boost::json::value schema;
};
}  // namespace detail

boost::system::result<validator, schema_error> validator::compile(const boost::json::value&,
                                                                  const options&) {
    return schema_error{"", "schema compiler not implemented yet"};
}
bool validator::is_valid(const boost::json::value&) const { return false; }
bool validator::validate(const boost::json::value&, candor::issue_list&) const { return false; }
const boost::json::value& validator::schema() const noexcept { return program_->schema; }
}  // namespace candor::schema
