// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Agent Skills made ready to publish (the `io.modelcontextprotocol/skills` extension): a skill's
/// files are checked and digested once, when the skill is made, and what comes out is an
/// `mcp::skill_entry` for `server::add_skill`.
///
/// @code
///   auto refunds = candor::skills::read_skill_directory("skills/refunds", "acme/billing");
///   if (!refunds) { /* refunds.error().code, .message */ }
///   srv.add_skill(std::move(*refunds)).value();   // skill://acme/billing/refunds/SKILL.md
/// @endcode
///
/// What is checked, each with its code (`skill_error::code`):
/// - `SKILL_PATH_INVALID`: the skill path is empty, has an empty, `.` or `..` segment, or a
///   character outside `A–Z a–z 0–9 - . _ ~`;
/// - `SKILL_NAME_INVALID`: the frontmatter `name` breaks the Agent Skills naming rules (1–64 of
///   `a–z 0–9 -`, no leading, trailing or doubled hyphen);
/// - `SKILL_NAME_MISMATCH`: the last segment of the skill path is not the frontmatter `name`;
/// - `SKILL_MD_MISSING`: no `SKILL.md` at the skill's root;
/// - `FRONTMATTER_MISSING`: `SKILL.md` does not begin with a `---` line and a closing `---`;
/// - `FRONTMATTER_INVALID`: the frontmatter is not in the YAML that Candor reads exactly (below);
/// - `FRONTMATTER_FIELD_MISSING`: no non-empty `name` or `description` string;
/// - `FILE_PATH_INVALID`: a file path with an empty, `.` or `..` segment, or a character that is
///   not `A–Z a–z 0–9 - . _ ~ ! $ & ' ( ) + , ; = @`;
/// - `DUPLICATE_FILE`: two files with one path;
/// - `TOO_MANY_FILES`, `SKILL_TOO_LARGE`: past the extension's limits (512 files, 16 MiB in all),
///   which no host is bound to accept;
/// - `DIRECTORY_UNREADABLE` (`read_skill_directory`): the directory or a file in it cannot be
///   read, or holds something that is neither a file nor a directory (a symbolic link).
///
/// The frontmatter must be read by a host exactly as it is served, so Candor reads a subset of
/// YAML and refuses the rest rather than guess: a mapping of keys to values written on one line
/// (plain, `'single'` or `"double"` quoted; plain values typed by YAML 1.2's core schema: null,
/// booleans, integers, finite floats), and, one level down, a block mapping or a block sequence
/// of such values (`metadata:`, a list of tools). Refused: flow collections (`[…]`, `{…}`),
/// block scalars (`|`, `>`), values continued on the next line, anchors, tags, duplicate keys,
/// tabs in indentation, unquoted values holding `: `, and unquoted dates (quote them).

#include <candor/mcp/skills.hpp>

#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace candor::skills {

/// One file of a skill.
struct skill_file {
    /// Relative to the skill's root, `/`-separated: `SKILL.md`, `templates/invoice.md`.
    std::string path{};
    /// The file's raw bytes.
    std::string content{};
    /// Empty: from the file's extension (`.md` is `text/markdown`; UTF-8 of an unknown kind is
    /// `text/plain`, other bytes `application/octet-stream`).
    std::string mime_type{};
};

/// Why a skill cannot be published.
struct skill_error {
    std::string code{};     ///< stable, listed above
    std::string message{};  ///< the file, the line and what to change
};

/// The extension's limits on one skill.
struct skill_limits {
    std::size_t max_files = 512;
    std::size_t max_total_bytes = 16u << 20;
};

/// The frontmatter of a `SKILL.md` as JSON.
boost::system::result<boost::json::object, skill_error> parse_frontmatter(std::string_view skill_md);

/// True for a name the Agent Skills specification allows.
bool is_valid_skill_name(std::string_view name) noexcept;

/// A skill at `skill://<skill_path>/` (`<scheme>://` with another scheme) from its files.
boost::system::result<mcp::skill_entry, skill_error> make_skill(std::string_view skill_path,
                                                                std::vector<skill_file> files,
                                                                std::string_view scheme = "skill",
                                                                const skill_limits& limits = {});

/// The skill in directory `dir` (every regular file under it), published at
/// `skill://<prefix>/<directory name>/` (without a prefix, `skill://<directory name>/`).
boost::system::result<mcp::skill_entry, skill_error> read_skill_directory(const std::filesystem::path& dir,
                                                                          std::string_view prefix = {},
                                                                          const skill_limits& limits = {});

}  // namespace candor::skills
