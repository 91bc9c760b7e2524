// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Skills (the `io.modelcontextprotocol/skills` extension): a server publishes Agent Skills,
/// directories of files with a `SKILL.md` at the root, as resources, and answers `skills/list`,
/// `skills/get` and `resources/directory/read`.
///
/// A skill reaches the server already checked and digested: build one with
/// `skills::make_skill` or `skills::read_skill_directory` (candor/skills/skill.hpp), which parse
/// the frontmatter, check the names and the limits and compute every file's SHA-256, then
/// register it with `server::add_skill`. With one skill registered the server declares the
/// extension (with `directoryRead: true`) in its capabilities.

#include <candor/mcp/resource.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace candor::mcp {

/// The extension's identifier, under `capabilities.extensions`.
inline constexpr std::string_view skills_extension = "io.modelcontextprotocol/skills";
/// The `mimeType` of a directory resource (`resources/directory/read`).
inline constexpr std::string_view directory_mime_type = "inode/directory";

/// One file of a skill as it is served.
struct skill_file_entry {
    /// Its `resources/list` entry: `uri` under the skill's root, `name`, `mimeType`, `size`.
    resource_info info{};
    /// What `resources/read` answers for it (text, or base64 for bytes that are not UTF-8).
    resource_contents contents{};
    /// `sha256:` and 64 lowercase hex digits, of the file's raw bytes.
    std::string digest{};
};

/// A skill as it is served: its `skills/list` entry and its files.
struct skill_entry {
    /// The URI of its `SKILL.md` (`skill://<skill-path>/SKILL.md`).
    std::string uri{};
    /// The `SKILL.md` frontmatter as JSON, with `name` and `description` strings at least.
    boost::json::object frontmatter{};
    /// Every file of the skill, `SKILL.md` among them, each URI once, all under the skill's root.
    std::vector<skill_file_entry> files{};
};

}  // namespace candor::mcp
