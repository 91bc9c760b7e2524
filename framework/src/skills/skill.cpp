// SPDX-License-Identifier: BSL-1.0
// A skill from its files (or a directory): paths and names checked, the frontmatter read, the
// extension's limits held, every file digested (SHA-256) once.
#include <candor/json/write.hpp>
#include <candor/mcp/base64.hpp>
#include <candor/skills/skill.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <set>
#include <system_error>

namespace candor::skills {

namespace {

constexpr std::string_view skill_md = "SKILL.md";
// A directory deeper than this under the skill's root is refused (the walk stays bounded).
constexpr int max_directory_depth = 32;

bool is_unreserved(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}
bool is_file_char(char c) {
    return is_unreserved(c) || c == '!' || c == '$' || c == '&' || c == '\'' || c == '(' || c == ')' || c == '+' ||
           c == ',' || c == ';' || c == '=' || c == '@';
}

// Segments separated by '/', none empty, `.` or `..`, each of `allowed` characters.
bool valid_path(std::string_view path, bool (*allowed)(char)) {
    if (path.empty()) return false;
    std::size_t from = 0;
    while (true) {
        const auto slash = path.find('/', from);
        const auto segment = path.substr(from, slash == std::string_view::npos ? std::string_view::npos : slash - from);
        if (segment.empty() || segment == "." || segment == ".." ||
            !std::all_of(segment.begin(), segment.end(), allowed))
            return false;
        if (slash == std::string_view::npos) return true;
        from = slash + 1;
    }
}

std::string mime_of(std::string_view path, bool text) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 20> by_extension{{
        {".md", "text/markdown"},      {".markdown", "text/markdown"}, {".txt", "text/plain"},
        {".py", "text/x-python"},      {".sh", "text/x-shellscript"},  {".js", "text/javascript"},
        {".mjs", "text/javascript"},   {".ts", "text/x-typescript"},   {".json", "application/json"},
        {".yaml", "application/yaml"}, {".yml", "application/yaml"},   {".toml", "application/toml"},
        {".csv", "text/csv"},          {".html", "text/html"},         {".xml", "application/xml"},
        {".svg", "image/svg+xml"},     {".png", "image/png"},          {".jpg", "image/jpeg"},
        {".jpeg", "image/jpeg"},       {".pdf", "application/pdf"},
    }};
    const auto name = path.substr(path.rfind('/') + 1);
    if (const auto dot = name.rfind('.'); dot != std::string_view::npos && dot > 0) {
        std::string extension(name.substr(dot));
        std::transform(extension.begin(), extension.end(), extension.begin(),
                       [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
        for (const auto& [ext, mime] : by_extension)
            if (ext == extension) return std::string(mime);
    }
    return text ? "text/plain" : "application/octet-stream";
}

std::string sha256_digest(std::string_view bytes) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 || size != 32)
        throw std::runtime_error("SHA-256 is not available from OpenSSL");  // a broken installation: a bug
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "sha256:";
    for (unsigned i = 0; i < size; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 0xF];
    }
    return out;
}

bool is_utf8(std::string_view bytes) {
    std::string scratch;
    scratch.reserve(bytes.size() + 2);
    return json::write_string(bytes, scratch).has_value();
}

skill_error error(std::string code, std::string message) { return {std::move(code), std::move(message)}; }

}  // namespace

bool is_valid_skill_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > 64 || name.front() == '-' || name.back() == '-') return false;
    if (name.find("--") != std::string_view::npos) return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

boost::system::result<mcp::skill_entry, skill_error> make_skill(std::string_view skill_path,
                                                                std::vector<skill_file> files, std::string_view scheme,
                                                                const skill_limits& limits) {
    if (!valid_path(skill_path, is_unreserved))
        return error("SKILL_PATH_INVALID", "the skill path '" + std::string(skill_path) +
                                               "' must be segments of A-Z a-z 0-9 - . _ ~ separated by '/'");
    if (files.size() > limits.max_files)
        return error("TOO_MANY_FILES", "the skill has " + std::to_string(files.size()) + " files; at most " +
                                           std::to_string(limits.max_files) + " are served");
    std::size_t total = 0;
    std::set<std::string_view> paths;
    const skill_file* manifest = nullptr;
    for (const auto& f : files) {
        if (!valid_path(f.path, is_file_char))
            return error("FILE_PATH_INVALID", "the file path '" + f.path +
                                                  "' must be '/'-separated segments of A-Z a-z 0-9 - . _ ~ ! $ & ' "
                                                  "( ) + , ; = @, none of them '.' or '..'");
        if (!paths.insert(f.path).second) return error("DUPLICATE_FILE", "the file '" + f.path + "' is given twice");
        total += f.content.size();
        if (f.path == skill_md) manifest = &f;
    }
    if (total > limits.max_total_bytes)
        return error("SKILL_TOO_LARGE", "the skill's files hold " + std::to_string(total) + " bytes; at most " +
                                            std::to_string(limits.max_total_bytes) + " are served");
    if (!manifest) return error("SKILL_MD_MISSING", "the skill has no SKILL.md at its root");
    auto frontmatter = parse_frontmatter(manifest->content);
    if (!frontmatter) return frontmatter.error();
    const auto* name = frontmatter->if_contains("name");
    const auto* description = frontmatter->if_contains("description");
    if (!name || !name->is_string() || name->get_string().empty() || !description || !description->is_string() ||
        description->get_string().empty())
        return error("FRONTMATTER_FIELD_MISSING",
                     "SKILL.md's frontmatter needs a non-empty `name` and a non-empty `description`");
    const std::string_view skill_name = name->get_string();
    if (!is_valid_skill_name(skill_name))
        return error("SKILL_NAME_INVALID", "the name '" + std::string(skill_name) +
                                               "' must be 1-64 of a-z 0-9 and '-', without a leading, trailing or "
                                               "doubled '-'");
    const auto last = skill_path.substr(skill_path.rfind('/') + 1);
    if (last != skill_name)
        return error("SKILL_NAME_MISMATCH", "the skill path '" + std::string(skill_path) +
                                                "' must end with its name '" + std::string(skill_name) + "'");

    const std::string root = std::string(scheme) + "://" + std::string(skill_path) + "/";
    mcp::skill_entry out;
    out.uri = root + std::string(skill_md);
    out.frontmatter = std::move(*frontmatter);
    // SKILL.md first, then the others by path.
    std::sort(files.begin(), files.end(), [](const skill_file& a, const skill_file& b) {
        return (a.path == skill_md) != (b.path == skill_md) ? a.path == skill_md : a.path < b.path;
    });
    out.files.reserve(files.size());
    for (auto& f : files) {
        mcp::skill_file_entry e;
        const bool text = is_utf8(f.content);
        e.info.uri = root + f.path;
        e.info.name = f.path.substr(f.path.rfind('/') + 1);
        e.info.mime_type = f.mime_type.empty() ? mime_of(f.path, text) : std::move(f.mime_type);
        e.info.size = f.content.size();
        if (f.path == skill_md) {
            e.info.name = std::string(skill_name);
            e.info.description = std::string(description->get_string());
        }
        e.digest = sha256_digest(f.content);
        e.contents = text
                         ? mcp::resource_contents::of_text(e.info.uri, e.info.mime_type, std::move(f.content))
                         : mcp::resource_contents::of_blob(e.info.uri, e.info.mime_type, mcp::base64_encode(f.content));
        out.files.push_back(std::move(e));
    }
    return out;
}

boost::system::result<mcp::skill_entry, skill_error> read_skill_directory(const std::filesystem::path& dir,
                                                                          std::string_view prefix,
                                                                          const skill_limits& limits) {
    namespace fs = std::filesystem;
    const auto unreadable = [&](const std::string& what) {
        return error("DIRECTORY_UNREADABLE", dir.string() + ": " + what);
    };
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return unreadable("not a directory");
    const auto name = dir.filename().empty() ? dir.parent_path().filename() : dir.filename();
    std::vector<skill_file> files;
    std::size_t total = 0;
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
    if (ec) return unreadable(ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) return unreadable(ec.message());
        if (it.depth() >= max_directory_depth) return unreadable("nested deeper than 32 directories");
        const auto status = it->symlink_status(ec);
        if (ec) return unreadable(ec.message());
        if (fs::is_directory(status)) continue;
        const auto relative = it->path().lexically_relative(dir).generic_string();
        if (!fs::is_regular_file(status))
            return unreadable(relative + " is neither a file nor a directory (a symbolic link is not followed)");
        if (files.size() == limits.max_files)
            return error("TOO_MANY_FILES", dir.string() + " holds more than " + std::to_string(limits.max_files) +
                                               " files; at most that many are served");
        const auto size = it->file_size(ec);
        if (ec) return unreadable(relative + ": " + ec.message());
        if ((total += size) > limits.max_total_bytes)
            return error("SKILL_TOO_LARGE", dir.string() + " holds more than " +
                                                std::to_string(limits.max_total_bytes) +
                                                " bytes; at most that many are "
                                                "served");
        std::ifstream in(it->path(), std::ios::binary);
        std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) return unreadable(relative + ": cannot be read");
        files.push_back(skill_file{relative, std::move(content), {}});
    }
    std::string path(prefix);
    if (!path.empty()) path += '/';
    path += name.string();
    return make_skill(path, std::move(files), "skill", limits);
}

}  // namespace candor::skills
