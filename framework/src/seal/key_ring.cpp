// SPDX-License-Identifier: BSL-1.0
#include <candor/seal/key_ring.hpp>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

namespace candor::seal {

namespace {

constexpr unsigned char sealed_version = 1;
constexpr std::size_t mac_size = 32;
constexpr std::size_t min_secret = 32;
constexpr std::size_t max_key_id = 32;

bool is_valid_key_id(std::string_view id) {
    if (id.empty() || id.size() > max_key_id) return false;
    for (char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

// OpenSSL 3 looks an algorithm up in its provider store on every implicit use (a lock and a
// hash lookup per call). Each algorithm is fetched once, and each thread keeps an HMAC context
// per key, initialized once and restarted for every MAC with the key it already holds.
const EVP_MD* sha256() {
    static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (md == nullptr) throw std::runtime_error("SHA-256 is not available");
    return md;
}

class hmac_contexts {
public:
    ~hmac_contexts() {
        for (auto& e : entries_) {
            EVP_MAC_CTX_free(e.ctx);
            OPENSSL_cleanse(e.secret.data(), e.secret.size());
        }
    }

    /// A context ready to take the message, for `secret`.
    EVP_MAC_CTX* ready(const std::string& secret) {
        for (auto& e : entries_) {
            if (e.secret == secret) {
                if (!EVP_MAC_init(e.ctx, nullptr, 0, nullptr)) throw std::runtime_error("HMAC-SHA-256 failed");
                return e.ctx;
            }
        }
        static EVP_MAC* const hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
        if (hmac == nullptr) throw std::runtime_error("HMAC is not available");
        EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(hmac);
        char digest[] = "SHA256";
        const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
        if (ctx == nullptr ||
            !EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), params)) {
            EVP_MAC_CTX_free(ctx);
            throw std::runtime_error("HMAC-SHA-256 failed");
        }
        // A few keys per ring; a thread that sees more (rings made and dropped) starts over.
        if (entries_.size() == 8) {
            EVP_MAC_CTX_free(entries_.front().ctx);
            OPENSSL_cleanse(entries_.front().secret.data(), entries_.front().secret.size());
            entries_.erase(entries_.begin());
        }
        entries_.push_back({secret, ctx});
        return ctx;
    }

private:
    struct entry {
        std::string secret;
        EVP_MAC_CTX* ctx;
    };
    std::vector<entry> entries_;
};

std::array<unsigned char, mac_size> mac_of(const std::string& secret, std::string_view purpose, std::string_view body) {
    thread_local hmac_contexts contexts;
    EVP_MAC_CTX* ctx = contexts.ready(secret);
    // The purpose is framed by its length so that ("ab", "c…") and ("a", "bc…") differ.
    const unsigned char frame[] = {static_cast<unsigned char>(purpose.size())};
    const unsigned char zero[] = {0};
    std::array<unsigned char, mac_size> out{};
    std::size_t len = 0;
    if (!EVP_MAC_update(ctx, frame, 1) ||
        !EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(purpose.data()), purpose.size()) ||
        !EVP_MAC_update(ctx, zero, 1) ||
        !EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(body.data()), body.size()) ||
        !EVP_MAC_final(ctx, out.data(), &len, out.size()) || len != mac_size)
        throw std::runtime_error("HMAC-SHA-256 failed");
    return out;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

constexpr char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int b64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

}  // namespace

std::string_view to_string(key_error e) noexcept {
    switch (e) {
        case key_error::no_keys: return "no sealing key configured";
        case key_error::invalid_key_id: return "a key id must be 1-32 characters of [A-Za-z0-9_.-]";
        case key_error::short_secret: return "a sealing key needs at least 32 bytes (64 hex digits)";
        case key_error::duplicate_id: return "two sealing keys share an id";
        case key_error::malformed: return "sealing keys are configured as id:HEX[,id:HEX...]";
    }
    return "unknown key error";
}

void throw_exception_from_error(key_error e, const boost::source_location&) {
    throw std::invalid_argument(std::string(to_string(e)));
}

std::string_view to_string(seal_error e) noexcept {
    switch (e) {
        case seal_error::malformed: return "malformed";
        case seal_error::unknown_key: return "unknown key";
        case seal_error::bad_mac: return "bad mac";
    }
    return "unknown";
}

void throw_exception_from_error(seal_error e, const boost::source_location&) {
    throw std::invalid_argument("sealed text refused: " + std::string(to_string(e)));
}

boost::system::result<key_ring, key_error> key_ring::from_keys(std::vector<sealing_key> keys) {
    if (keys.empty()) return key_error::no_keys;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!is_valid_key_id(keys[i].id)) return key_error::invalid_key_id;
        if (keys[i].secret.size() < min_secret) return key_error::short_secret;
        for (std::size_t j = 0; j < i; ++j)
            if (keys[j].id == keys[i].id) return key_error::duplicate_id;
    }
    key_ring r;
    r.keys_ = std::move(keys);
    return r;
}

boost::system::result<key_ring, key_error> key_ring::from_config(std::string_view text) {
    std::vector<sealing_key> keys;
    while (!text.empty()) {
        const auto comma = text.find(',');
        std::string_view entry = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        const auto colon = entry.find(':');
        if (colon == std::string_view::npos) return key_error::malformed;
        std::string_view hex = entry.substr(colon + 1);
        if (hex.size() % 2 != 0) return key_error::malformed;
        sealing_key k{std::string(entry.substr(0, colon)), {}};
        for (std::size_t i = 0; i < hex.size(); i += 2) {
            const int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
            if (hi < 0 || lo < 0) return key_error::malformed;
            k.secret.push_back(static_cast<char>(hi * 16 + lo));
        }
        keys.push_back(std::move(k));
    }
    return from_keys(std::move(keys));
}

key_ring key_ring::ephemeral(const std::function<void(std::string_view)>& log) {
    key_ring r;
    std::string secret(min_secret, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(secret.data()), static_cast<int>(secret.size())) != 1)
        throw std::runtime_error("no randomness for an ephemeral sealing key");
    r.keys_.push_back({"ephemeral", std::move(secret)});
    r.ephemeral_ = true;
    if (log)
        log("sealing with an EPHEMERAL random key (development mode): cursors and snapshot tokens "
            "become invalid when this process exits; configure sealing keys for production");
    return r;
}

const std::string& key_ring::current_key_id() const noexcept { return keys_.front().id; }

std::string key_ring::seal(std::string_view purpose, std::string_view payload) const {
    const auto& key = keys_.front();
    std::string body;
    body.reserve(2 + key.id.size() + payload.size() + mac_size);
    body.push_back(static_cast<char>(sealed_version));
    body.push_back(static_cast<char>(key.id.size()));
    body.append(key.id);
    body.append(payload);
    const auto mac = mac_of(key.secret, purpose, body);
    body.append(reinterpret_cast<const char*>(mac.data()), mac.size());
    return detail::base64url_encode(body);
}

boost::system::result<std::string, seal_error> key_ring::open(std::string_view purpose, std::string_view sealed) const {
    std::string raw;
    if (!detail::base64url_decode(sealed, raw)) return seal_error::malformed;
    if (raw.size() < 2 + mac_size || static_cast<unsigned char>(raw[0]) != sealed_version) return seal_error::malformed;
    const std::size_t id_len = static_cast<unsigned char>(raw[1]);
    if (raw.size() < 2 + id_len + mac_size) return seal_error::malformed;
    const std::string_view id(raw.data() + 2, id_len);
    const sealing_key* key = nullptr;
    for (const auto& k : keys_)
        if (k.id == id) key = &k;
    if (!key) return seal_error::unknown_key;
    const std::string_view body(raw.data(), raw.size() - mac_size);
    const auto expected = mac_of(key->secret, purpose, body);
    if (CRYPTO_memcmp(expected.data(), raw.data() + body.size(), mac_size) != 0) return seal_error::bad_mac;
    return std::string(raw.substr(2 + id_len, raw.size() - mac_size - 2 - id_len));
}

std::string fingerprint(std::string_view label, std::string_view text) {
    // One digest context per thread, reset for each use: EVP_Digest would allocate and free
    // one per call (every page fingerprints its query and its caller).
    struct context {
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        ~context() { EVP_MD_CTX_free(ctx); }
    };
    thread_local context c;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    static constexpr unsigned char separator = 0;
    if (c.ctx == nullptr || !EVP_DigestInit_ex2(c.ctx, sha256(), nullptr) ||
        !EVP_DigestUpdate(c.ctx, label.data(), label.size()) || !EVP_DigestUpdate(c.ctx, &separator, 1) ||
        !EVP_DigestUpdate(c.ctx, text.data(), text.size()) || !EVP_DigestFinal_ex(c.ctx, md, &len))
        throw std::runtime_error("SHA-256 failed");
    std::string out;
    detail::append_hex(out, std::string_view(reinterpret_cast<const char*>(md), std::min(16u, len)));
    return out;
}

std::string random_hex(std::size_t n) {
    // OpenSSL's generator costs microseconds per call (locks, a fork check): every first page
    // of a walk asks for an id. Each thread draws a block at a time and hands it out; the bytes
    // are the generator's all the same, each used once.
    struct pool {
        std::array<unsigned char, 4096> bytes;
        std::size_t used = 4096;
    };
    thread_local pool p;
    std::string out;
    out.reserve(2 * n);
    while (n > 0) {
        if (p.used == p.bytes.size()) {
            if (RAND_bytes(p.bytes.data(), static_cast<int>(p.bytes.size())) != 1)
                throw std::runtime_error("no randomness");
            p.used = 0;
        }
        const std::size_t take = std::min(n, p.bytes.size() - p.used);
        detail::append_hex(out, std::string_view(reinterpret_cast<const char*>(p.bytes.data() + p.used), take));
        OPENSSL_cleanse(p.bytes.data() + p.used, take);
        p.used += take;
        n -= take;
    }
    return out;
}

namespace detail {

void append_hex(std::string& out, std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    const std::size_t at = out.size();
    out.resize(at + 2 * bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        out[at + 2 * i] = digits[b >> 4];
        out[at + 2 * i + 1] = digits[b & 15];
    }
}

std::string base64url_encode(std::string_view bytes) {
    // Sized once and filled through a pointer (no capacity check per character).
    const std::size_t n = bytes.size();
    std::string out(n / 3 * 4 + (n % 3 == 0 ? 0 : n % 3 + 1), '\0');
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    char* q = out.data();
    std::size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const unsigned v = (unsigned{p[i]} << 16) | (unsigned{p[i + 1]} << 8) | p[i + 2];
        q[0] = b64_alphabet[(v >> 18) & 63];
        q[1] = b64_alphabet[(v >> 12) & 63];
        q[2] = b64_alphabet[(v >> 6) & 63];
        q[3] = b64_alphabet[v & 63];
        q += 4;
    }
    if (n - i == 1) {
        const unsigned v = unsigned{p[i]} << 16;
        q[0] = b64_alphabet[(v >> 18) & 63];
        q[1] = b64_alphabet[(v >> 12) & 63];
    } else if (n - i == 2) {
        const unsigned v = (unsigned{p[i]} << 16) | (unsigned{p[i + 1]} << 8);
        q[0] = b64_alphabet[(v >> 18) & 63];
        q[1] = b64_alphabet[(v >> 12) & 63];
        q[2] = b64_alphabet[(v >> 6) & 63];
    }
    return out;
}

bool base64url_decode(std::string_view text, std::string& out) {
    out.clear();
    if (text.size() % 4 == 1) return false;
    out.reserve(text.size() * 3 / 4);
    unsigned acc = 0;
    int bits = 0;
    for (char c : text) {
        const int v = b64_value(c);
        if (v < 0) return false;
        acc = (acc << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
    }
    // Canonical: the unused low bits of the last character must be zero.
    return (acc & ((1u << bits) - 1)) == 0;
}

}  // namespace detail

}  // namespace candor::seal
