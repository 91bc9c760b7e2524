// SPDX-License-Identifier: BSL-1.0
// The skills extension (io.modelcontextprotocol/skills): a published skill's files are fixed
// resources; skills/list and skills/get answer its entry; resources/directory/read lists the
// direct children of every directory of the skill namespaces served.
#include "connection_impl.hpp"

#include <candor/mcp/skills.hpp>

#include <algorithm>
#include <set>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

constexpr std::string_view skill_md = "/SKILL.md";
constexpr std::string_view resources_changed = "notifications/resources/list_changed";

bool is_digest(std::string_view d) {
    constexpr std::string_view prefix = "sha256:";
    if (d.size() != prefix.size() + 64 || d.substr(0, prefix.size()) != prefix) return false;
    return std::all_of(d.begin() + prefix.size(), d.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The skill's root: its SKILL.md URI without `/SKILL.md`, when that leaves `scheme://x…`.
std::optional<std::string_view> root_of(std::string_view uri) {
    if (uri.size() <= skill_md.size() || uri.substr(uri.size() - skill_md.size()) != skill_md) return std::nullopt;
    const auto root = uri.substr(0, uri.size() - skill_md.size());
    const auto scheme_end = root.find("://");
    if (scheme_end == std::string_view::npos || scheme_end + 3 >= root.size()) return std::nullopt;
    return root;
}

// The shape the extension requires of an entry (what `skills::make_skill` guarantees).
bool well_formed(const skill_entry& s) {
    const auto root = root_of(s.uri);
    if (!root || !is_valid_resource_uri(s.uri)) return false;
    const auto* name = s.frontmatter.if_contains("name");
    const auto* description = s.frontmatter.if_contains("description");
    if (!name || !name->is_string() || name->get_string().empty() || !description || !description->is_string() ||
        description->get_string().empty())
        return false;
    // The last segment of the skill's path is its name.
    const auto last = root->substr(root->rfind('/') + 1);
    if (last != std::string_view(name->get_string())) return false;
    std::set<std::string_view> seen;
    bool has_skill_md = false;
    const std::string inside = std::string(*root) + "/";
    for (const auto& f : s.files) {
        if (!is_valid_resource_uri(f.info.uri) || !f.info.uri.starts_with(inside) || f.info.name.empty() ||
            !is_digest(f.digest) || f.contents.uri != f.info.uri || !seen.insert(f.info.uri).second)
            return false;
        if (f.info.uri == s.uri) has_skill_md = true;
    }
    return has_skill_md;
}

boost::json::object entry_of(const skill_entry& s) {
    boost::json::array files;
    for (const auto& f : s.files)
        files.push_back(
            boost::json::object{{"uri", f.info.uri}, {"digest", f.digest}, {"size", f.info.size.value_or(0)}});
    return boost::json::object{{"uri", s.uri}, {"frontmatter", s.frontmatter}, {"resources", std::move(files)}};
}

rpc::error_object no_skills(const rpc::request& req) {
    return rpc::error_object::make(rpc::error_code::method_not_found,
                                   "method not found: " + req.method + " (this server publishes no skills)");
}

}  // namespace

namespace detail {

void advertise_skills(boost::json::object& capabilities) {
    auto& extensions = capabilities["extensions"];
    if (!extensions.is_object()) extensions.emplace_object();
    extensions.get_object()[skills_extension] = boost::json::object{{"directoryRead", true}};
}

void request_dispatcher::on_skills_list(const rpc::request& req) {
    {
        std::lock_guard lock(c_.core->mu);
        if (c_.core->skills.empty()) return c_.send_error(req.id, no_skills(req));
    }
    answer_list(req, c_.core->skills, "skills", "skills", [](const boost::json::object& entry) { return entry; });
}

void request_dispatcher::on_skills_get(const rpc::request& req) {
    const auto* uri = detail::string_param(req.params, "uri");
    if (!uri) return c_.send_error(req.id, detail::invalid_params("skills/get needs params.uri (a string)"));
    std::shared_ptr<const server_core::skill_record> found;
    {
        std::lock_guard lock(c_.core->mu);
        if (c_.core->skills.empty()) return c_.send_error(req.id, no_skills(req));
        if (auto it = c_.core->skills.find(std::string_view(*uri)); it != c_.core->skills.end()) found = it->second;
    }
    if (!found) return c_.send_error(req.id, detail::invalid_params("no skill is served at " + std::string(*uri)));
    c_.answer(req.id, boost::json::object{{"skill", found->info}}, c_.style_of(&c_.core->opts.caching.reads));
}

void request_dispatcher::on_directory_read(const rpc::request& req) {
    const auto* uri = detail::string_param(req.params, "uri");
    if (!uri)
        return c_.send_error(req.id, detail::invalid_params("resources/directory/read needs params.uri (a string)"));
    std::optional<std::string> cursor;
    if (!read_cursor(req.params, cursor))
        return c_.send_error(req.id, detail::invalid_params("cursor must be a string"));
    const std::string dir(*uri);
    const std::string inside = dir + "/";
    std::optional<std::string> after;
    if (cursor) {
        after = open_cursor("directory", *cursor);
        if (!after || !after->starts_with(inside))
            return c_.send_error(
                req.id, detail::invalid_params("invalid cursor: pass a nextCursor from an earlier read of " + dir));
    }
    const auto page_size = std::max<std::size_t>(c_.core->opts.list_page_size, 1);
    boost::json::array children;
    std::optional<std::string> next;
    {
        std::lock_guard lock(c_.core->mu);
        const auto& files = c_.core->skill_files;
        if (c_.core->skills.empty()) return c_.send_error(req.id, no_skills(req));
        auto it = files.lower_bound(std::string_view(inside));
        if (it == files.end() || !it->first.starts_with(inside) || dir.find("://") == std::string::npos)
            return c_.send_error(req.id, detail::invalid_params(dir + " is not a directory resource"));
        if (after) {
            // Past the last child sent, and past everything under it when it was a directory.
            it = files.upper_bound(std::string_view(*after));
            const std::string under = *after + "/";
            while (it != files.end() && it->first.starts_with(under)) ++it;
        }
        std::string last_directory;
        for (; it != files.end() && it->first.starts_with(inside); ++it) {
            const std::string_view rest = std::string_view(it->first).substr(inside.size());
            const auto slash = rest.find('/');
            if (slash != std::string_view::npos && rest.substr(0, slash) == last_directory) continue;
            if (children.size() == page_size) {
                next = seal_cursor("directory", children.back().as_object().at("uri").as_string());
                break;
            }
            if (slash == std::string_view::npos) {
                children.push_back(describe_resource(it->second.info, c_.frame.rules));
            } else {
                last_directory = std::string(rest.substr(0, slash));
                children.push_back(boost::json::object{
                    {"uri", inside + last_directory}, {"name", last_directory}, {"mimeType", directory_mime_type}});
            }
        }
    }
    boost::json::object result{{"resources", std::move(children)}};
    if (next) result["nextCursor"] = *next;
    c_.answer(req.id, std::move(result), c_.style_of());
}

}  // namespace detail

boost::system::result<void, registration_error> server::add_skill(skill_entry skill) {
    for (const auto& f : skill.files)
        if (!is_valid_resource_uri(f.info.uri)) return registration_error::invalid_uri;
    if (!well_formed(skill)) return registration_error::invalid_skill;
    auto record =
        std::make_shared<const detail::server_core::skill_record>(detail::server_core::skill_record{entry_of(skill)});
    {
        std::lock_guard lock(core_->mu);
        auto& files = core_->skill_files;
        if (core_->skills.count(skill.uri)) return registration_error::duplicate_name;
        for (const auto& f : skill.files) {
            const auto& uri = f.info.uri;
            // A file another skill lists too (a nested skill's) is one resource, the same bytes.
            if (auto it = files.find(uri); it != files.end()) {
                if (it->second.digest != f.digest) return registration_error::duplicate_name;
                continue;
            }
            if (core_->resources.count(uri)) return registration_error::duplicate_name;
            // A URI is a file or a directory, never both.
            const std::string under = uri + "/";
            if (auto below = files.lower_bound(std::string_view(under));
                below != files.end() && below->first.starts_with(under))
                return registration_error::duplicate_name;
            for (auto slash = uri.rfind('/'); slash != std::string::npos && slash > uri.find("://") + 2;
                 slash = uri.rfind('/', slash - 1))
                if (files.count(std::string_view(uri).substr(0, slash))) return registration_error::duplicate_name;
        }
        for (auto& f : skill.files) {
            if (files.count(f.info.uri)) continue;
            files.emplace(f.info.uri, detail::server_core::skill_file_record{f.info, f.digest});
            auto contents = std::make_shared<const std::vector<resource_contents>>(1, std::move(f.contents));
            resource_reader read = [contents](const resource_request&)
                -> boost::asio::awaitable<std::optional<std::vector<resource_contents>>> { co_return *contents; };
            core_->resources.emplace(f.info.uri, std::make_shared<const detail::server_core::resource_entry>(
                                                     detail::server_core::resource_entry{f.info, std::move(read)}));
        }
        core_->skills.emplace(skill.uri, std::move(record));
    }
    core_->notify_list_changed(resources_changed);
    return {};
}

}  // namespace candor::mcp
