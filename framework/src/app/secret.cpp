// SPDX-License-Identifier: BSL-1.0
#include <candor/app/secret.hpp>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace candor::app {

namespace {

const char* env(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    return v && *v ? v : nullptr;
}

boost::system::result<std::string, secret_failure> read_file(const std::string& path, const std::string& where) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return secret_failure{secret_error::unreadable, where};
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
        text.append(buf, n);
        if (text.size() > max_secret_bytes) break;
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return secret_failure{secret_error::unreadable, where};
    if (text.size() > max_secret_bytes) return secret_failure{secret_error::too_large, where};
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
        text.pop_back();
    if (text.empty()) return secret_failure{secret_error::empty, where};
    return text;
}

}  // namespace

std::string_view to_string(secret_error e) noexcept {
    switch (e) {
        case secret_error::ambiguous: return "ambiguous";
        case secret_error::unreadable: return "unreadable";
        case secret_error::too_large: return "too_large";
        case secret_error::empty: return "empty";
    }
    return "unknown";
}

void throw_exception_from_error(const secret_failure& f, const boost::source_location&) {
    throw std::runtime_error("secret " + f.where + ": " + std::string(to_string(f.code)));
}

boost::system::result<std::optional<secret>, secret_failure> read_secret(std::string_view name,
                                                                         std::string_view credential) {
    const std::string var(name);
    const std::string file_var = var + "_FILE";
    const char* file = env(file_var);
    std::string credential_path;
    if (const char* dir = env("CREDENTIALS_DIRECTORY"); dir && !credential.empty()) {
        const std::string path = std::string(dir) + "/" + std::string(credential);
        // A credential exists when its file does; $CREDENTIALS_DIRECTORY is set for any of them.
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            std::fclose(f);
            credential_path = path;
        }
    }
    const char* value = env(var);
    const int set = (file ? 1 : 0) + (credential_path.empty() ? 0 : 1) + (value ? 1 : 0);
    if (set == 0) return std::optional<secret>();
    if (set > 1)
        return secret_failure{secret_error::ambiguous, "more than one of $" + file_var + ", credential " +
                                                           std::string(credential) + ", $" + var + " is set"};
    if (file) {
        const std::string where = "$" + file_var + " (" + file + ")";
        auto text = read_file(file, where);
        if (!text) return text.error();
        return std::optional<secret>(secret{std::move(*text), where});
    }
    if (!credential_path.empty()) {
        const std::string where = "credential " + std::string(credential);
        auto text = read_file(credential_path, where);
        if (!text) return text.error();
        return std::optional<secret>(secret{std::move(*text), where});
    }
    return std::optional<secret>(secret{value, "$" + var});
}

boost::system::result<secret, secret_failure> read_secret_file(const std::string& path) {
    const std::string where = "file " + path;
    auto text = read_file(path, where);
    if (!text) return text.error();
    return secret{std::move(*text), where};
}

}  // namespace candor::app
