// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: turns a schema (and every document it references) into a `program`.

#include "program.hpp"

#include <boost/system/result.hpp>

namespace candor::schema::detail {

/// Fill `p` (whose `schema` and `opts` are already set) from `p.schema`.
/// @return nothing, or the first problem found, naming the keyword and its location.
/// @complexity linear in the total size of the documents reached, plus one pass per
/// `$dynamicRef` over the dynamic anchors of its name.
boost::system::result<void, schema_error> compile_program(program& p);

}  // namespace candor::schema::detail
