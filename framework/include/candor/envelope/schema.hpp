// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The JSON Schema of the envelope, used as every data tool's `outputSchema`.
///
/// MCP clients may validate `structuredContent` against `outputSchema` (the TypeScript SDK
/// does, with ajv), so the schema must accept every envelope `seal` can produce, error
/// envelopes included: `data` is optional (absent on error), `continuation` is `null` or one of
/// the documented shapes, and reasons, warnings, errors and the envelope itself allow extra
/// members (details, and later `page`/`snapshot_token`). It uses only keywords that mean the
/// same in draft-07 and 2020-12 and no `$schema`/`$ref`, so any validator accepts it as is.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace candor::envelope {

/// The envelope schema with `data_schema` as the schema of `data`.
/// @param data_schema a JSON Schema (object or boolean); `true` accepts any data
/// @return a fresh schema object
/// @complexity linear in the size of `data_schema` (it is copied)
boost::json::object output_schema(const boost::json::value& data_schema = true);

}  // namespace candor::envelope
