// SPDX-License-Identifier: BSL-1.0
#pragma once
// A real PostgreSQL server for tests: initdb into a fresh folder under /tmp, started with
// pg_ctl, listening only on a Unix socket in that folder (no TCP port to collide with), stopped
// and removed at the end. PostgreSQL refuses to run as root, so as root (CI) the server runs as
// the unprivileged user `nobody` (runuser). The binaries come from Debian's postgresql package
// (scripts/setup-deps); a missing one fails the test, it never skips.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace candor_test {

class temporary_server {
public:
    temporary_server() {
        std::string pattern = (std::filesystem::temp_directory_path() / "candor-pg-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        dir_ = pattern;
        if (::geteuid() == 0) {
            as_user_ = "runuser -u nobody -- ";
            run("chown nobody " + dir_);
        }
        if (!run(as_user_ + bin("initdb") + " -D " + dir_ + "/data -U candor --auth=trust -E UTF8 --no-sync > " + dir_ +
                 "/initdb.log 2>&1"))
            throw std::runtime_error("initdb failed: " + read(dir_ + "/initdb.log"));
        start();
    }
    ~temporary_server() {
        stop();
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    temporary_server(const temporary_server&) = delete;
    temporary_server& operator=(const temporary_server&) = delete;

    /// A libpq connection string for the server's socket.
    std::string conninfo() const { return "host=" + dir_ + " port=5432 user=candor dbname=postgres"; }
    /// The same as a URI (what `--state` and `--db` take).
    std::string url() const { return "postgresql://candor@/postgres?host=" + dir_ + "&port=5432"; }

    void start() {
        if (running_) return;
        if (!run(as_user_ + bin("pg_ctl") + " -D " + dir_ + "/data -l " + dir_ + "/server.log -w -t 30 -o \"-k " +
                 dir_ + " -c listen_addresses='' -p 5432 -c fsync=off -c max_connections=60\" start > /dev/null 2>&1"))
            throw std::runtime_error("pg_ctl start failed: " + read(dir_ + "/server.log"));
        running_ = true;
    }
    /// Stops at once (no checkpoint), as a crash or a failover would look to clients.
    void stop() {
        if (!running_) return;
        run(as_user_ + bin("pg_ctl") + " -D " + dir_ + "/data -m immediate -w stop > /dev/null 2>&1");
        running_ = false;
    }
    /// Runs SQL through psql (setup that is not under test).
    bool psql(const std::string& sql) const {
        return run(as_user_ + bin("psql") + " -X -q -v ON_ERROR_STOP=1 \"" + conninfo() + "\" -c \"" + sql +
                   "\" > /dev/null 2>&1");
    }

private:
    static bool run(const std::string& command) { return std::system(command.c_str()) == 0; }
    static std::string bin(const char* name) { return std::string("/usr/lib/postgresql/15/bin/") + name; }
    static std::string read(const std::string& path) {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    std::string dir_;
    std::string as_user_;
    bool running_ = false;
};

}  // namespace candor_test
