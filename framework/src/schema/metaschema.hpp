// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: the Draft 2020-12 metaschema documents, built in so that `$schema` and `$ref` to
// https://json-schema.org/draft/2020-12/... resolve without a resolver (and never a fetch).

#include <optional>
#include <string_view>

namespace candor::schema::detail {

inline constexpr std::string_view metaschema_uri = "https://json-schema.org/draft/2020-12/schema";

/// The text of a built-in metaschema document, by absolute URI (no fragment).
std::optional<std::string_view> builtin_document(std::string_view uri) noexcept;

}  // namespace candor::schema::detail
