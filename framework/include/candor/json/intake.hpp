// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Strict, single-pass intake of untrusted JSON text.
///
/// Every byte an agent sends passes through here before anything else sees it. One pass over
/// the raw bytes with Boost.JSON's `basic_parser` builds the DOM and checks, at the same time:
/// the byte budget (before parsing starts), RFC 8259 syntax and UTF-8, duplicate keys (compared
/// after unescaping), non-finite numbers, container depth and node count. Resource limits stop
/// the work at the first value over budget.
///
/// Depth rule: the root object or array has depth 1, each nested object or array adds 1,
/// scalars add nothing (a scalar root has depth 0). Nodes: every value counts, containers
/// included; object keys do not count.

#include <candor/json/document.hpp>
#include <candor/json/violation.hpp>

#include <boost/system/result.hpp>

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace candor::json {

/// Hard ceiling on any configurable depth. Boost.JSON 1.81's parser recurses (about 80 bytes
/// of stack per level) and so do the DOM's destructor and several downstream walks; every
/// document Candor holds is at most this deep, which bounds all of them.
inline constexpr std::size_t depth_ceiling = 512;

/// Structural budget for one JSON text. The defaults are the server-wide message limits.
struct limits {
    /// Raw size in bytes, checked before parsing starts (`INPUT_TOO_LARGE`).
    std::size_t max_bytes = 4u << 20;
    /// Container depth (`DEPTH_LIMIT`); must not exceed `depth_ceiling`.
    std::size_t max_depth = 64;
    /// Values of any kind, containers included, keys excluded (`NODE_LIMIT`).
    std::size_t max_nodes = 1'000'000;
};

/// What a caller wants when a text is well-formed but semantically unfit.
enum class on_semantic_violation {
    /// Stop at the first duplicate key or non-finite number (the default).
    stop,
    /// Record every duplicate key and non-finite number (with its path) and keep parsing, so
    /// that a JSON-RPC layer can still learn a message's `id` and `method` that come after
    /// them. Syntax errors and resource limits still stop at once.
    collect,
};

/// The outcome of a parse that went to the end of the text.
struct scanned {
    document doc{};
    /// Semantic violations found on the way (only with `on_semantic_violation::collect`); the
    /// document holds the last value of a duplicated key and `null` for a non-finite number.
    std::vector<violation> violations{};
};

/// Incremental strict parser: feed the text in chunks of any size and get the same verdict as
/// for the whole text at once. Not thread-safe; reusable after `reset`.
class parser {
public:
    explicit parser(const limits& lim = {}, on_semantic_violation mode = on_semantic_violation::stop);
    ~parser();
    parser(const parser&) = delete;
    parser& operator=(const parser&) = delete;

    /// Feed the next chunk. Returns false once the text has been rejected (see `finish`).
    bool write(std::string_view chunk);

    /// Signal the end of the text and get the verdict.
    /// @return the document and any collected violations, or the first fatal violation.
    boost::system::result<scanned, violation> finish();

    /// Start over with the same limits and mode.
    void reset();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// Parse one complete JSON text strictly: any violation rejects it.
/// @complexity linear in the size of the text; stops at the first value over a budget.
boost::system::result<document, violation> parse(std::string_view text, const limits& lim = {});

/// Parse one complete JSON text, collecting duplicate keys and non-finite numbers instead of
/// stopping at them (see `on_semantic_violation::collect`).
boost::system::result<scanned, violation> scan(std::string_view text, const limits& lim = {});

/// Depth and node count of a value already in memory (e.g. a message's `arguments`), measured
/// with an explicit stack and stopping at the first value over budget. The byte budget does
/// not apply. Paths in violations are relative to `v`.
struct shape {
    std::size_t depth = 0;
    std::size_t nodes = 0;
};
boost::system::result<shape, violation> measure(const boost::json::value& v, const limits& lim);

}  // namespace candor::json
