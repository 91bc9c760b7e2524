// SPDX-License-Identifier: BSL-1.0
// A skill made from files or a directory: names, paths and limits checked, every file digested,
// SKILL.md first and described by its frontmatter, bytes that are not UTF-8 served as base64.
#include <candor/skills/skill.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

namespace sk = candor::skills;
namespace fs = std::filesystem;

const std::string manifest = "---\nname: refunds\ndescription: Refund orders\n---\n# Refunds\n";

std::string code_of(const boost::system::result<candor::mcp::skill_entry, sk::skill_error>& r) {
    return r ? std::string("accepted") : r.error().code;
}

TEST(Skill, FilesBecomeAnEntryWithDigestsAndSkillMdFirst) {
    auto r = sk::make_skill(
        "acme/billing/refunds",
        {{"templates/b.md", "abc"}, {"SKILL.md", manifest}, {"data.bin", std::string("\xff\x00\x01", 3)}});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->uri, "skill://acme/billing/refunds/SKILL.md");
    EXPECT_EQ(r->frontmatter.at("name"), "refunds");
    ASSERT_EQ(r->files.size(), 3u);
    const auto& md = r->files[0];
    EXPECT_EQ(md.info.uri, r->uri);
    EXPECT_EQ(md.info.name, "refunds");
    EXPECT_EQ(md.info.description, "Refund orders");
    EXPECT_EQ(md.info.mime_type, "text/markdown");
    EXPECT_EQ(md.info.size, manifest.size());
    EXPECT_EQ(md.contents.text, manifest);
    const auto& bin = r->files[1];
    EXPECT_EQ(bin.info.uri, "skill://acme/billing/refunds/data.bin");
    EXPECT_EQ(bin.info.mime_type, "application/octet-stream");
    EXPECT_TRUE(bin.contents.binary);
    EXPECT_EQ(bin.contents.blob, "/wAB");
    EXPECT_EQ(bin.info.size, 3u);
    const auto& b = r->files[2];
    EXPECT_EQ(b.info.name, "b.md");
    // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
    EXPECT_EQ(b.digest, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Skill, NamesAndPathsAreChecked) {
    EXPECT_EQ(code_of(sk::make_skill("", {{"SKILL.md", manifest}})), "SKILL_PATH_INVALID");
    EXPECT_EQ(code_of(sk::make_skill("acme//refunds", {{"SKILL.md", manifest}})), "SKILL_PATH_INVALID");
    EXPECT_EQ(code_of(sk::make_skill("../refunds", {{"SKILL.md", manifest}})), "SKILL_PATH_INVALID");
    EXPECT_EQ(code_of(sk::make_skill("acme/refund", {{"SKILL.md", manifest}})), "SKILL_NAME_MISMATCH");
    EXPECT_EQ(code_of(sk::make_skill("Refunds", {{"SKILL.md", "---\nname: Refunds\ndescription: d\n---\n"}})),
              "SKILL_NAME_INVALID");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"SKILL.md", "---\nname: refunds\n---\n"}})),
              "FRONTMATTER_FIELD_MISSING");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"SKILL.md", "---\nname: refunds\ndescription: 12\n---\n"}})),
              "FRONTMATTER_FIELD_MISSING");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"README.md", manifest}})), "SKILL_MD_MISSING");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"SKILL.md", manifest}, {"a/../b.md", "x"}})), "FILE_PATH_INVALID");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"SKILL.md", manifest}, {"a b.md", "x"}})), "FILE_PATH_INVALID");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"SKILL.md", manifest}, {"/abs.md", "x"}})), "FILE_PATH_INVALID");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"SKILL.md", manifest}, {"SKILL.md", manifest}})), "DUPLICATE_FILE");
    EXPECT_EQ(code_of(sk::make_skill("refunds", {{"SKILL.md", "no frontmatter"}})), "FRONTMATTER_MISSING");
}

TEST(Skill, TheExtensionsLimitsHold) {
    std::vector<sk::skill_file> files{{"SKILL.md", manifest}};
    for (int i = 0; i < 3; ++i) files.push_back({"f" + std::to_string(i), "x"});
    EXPECT_EQ(code_of(sk::make_skill("refunds", files, "skill", {.max_files = 3})), "TOO_MANY_FILES");
    EXPECT_EQ(code_of(sk::make_skill("refunds", files, "skill", {.max_files = 4})), "accepted");
    EXPECT_EQ(code_of(sk::make_skill("refunds", files, "skill", {.max_total_bytes = manifest.size() + 2})),
              "SKILL_TOO_LARGE");
    EXPECT_TRUE(sk::is_valid_skill_name("a-1"));
    for (const char* bad : {"", "-a", "a-", "a--b", "A", "a_b", "a.b"})
        EXPECT_FALSE(sk::is_valid_skill_name(bad)) << bad;
    EXPECT_TRUE(sk::is_valid_skill_name(std::string(64, 'a')));
    EXPECT_FALSE(sk::is_valid_skill_name(std::string(65, 'a')));
}

struct temp_dir {
    fs::path root = fs::temp_directory_path() / ("candor-skill-" + std::to_string(::getpid()));
    temp_dir() { fs::remove_all(root); }
    ~temp_dir() { fs::remove_all(root); }
    void write(const fs::path& relative, const std::string& content) const {
        fs::create_directories((root / relative).parent_path());
        std::ofstream(root / relative, std::ios::binary) << content;
    }
};

TEST(Skill, ADirectoryIsReadWholeUnderItsPrefix) {
    temp_dir t;
    t.write("refunds/SKILL.md", manifest);
    t.write("refunds/templates/regional/eu.md", "EU");
    t.write("refunds/templates/approved.md", "ok");
    auto r = sk::read_skill_directory(t.root / "refunds", "acme/billing");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->uri, "skill://acme/billing/refunds/SKILL.md");
    ASSERT_EQ(r->files.size(), 3u);
    EXPECT_EQ(r->files[1].info.uri, "skill://acme/billing/refunds/templates/approved.md");
    EXPECT_EQ(r->files[2].info.uri, "skill://acme/billing/refunds/templates/regional/eu.md");
    auto top = sk::read_skill_directory(t.root / "refunds" / "");
    ASSERT_TRUE(top) << top.error().message;
    EXPECT_EQ(top->uri, "skill://refunds/SKILL.md");
}

TEST(Skill, ADirectoryWithALinkOrTooManyFilesIsRefused) {
    temp_dir t;
    t.write("refunds/SKILL.md", manifest);
    t.write("refunds/a.md", "a");
    t.write("refunds/b.md", "b");
    EXPECT_EQ(code_of(sk::read_skill_directory(t.root / "refunds", {}, {.max_files = 2})), "TOO_MANY_FILES");
    EXPECT_EQ(code_of(sk::read_skill_directory(t.root / "refunds", {}, {.max_total_bytes = 10})), "SKILL_TOO_LARGE");
    EXPECT_EQ(code_of(sk::read_skill_directory(t.root / "nowhere")), "DIRECTORY_UNREADABLE");
    fs::create_symlink("/etc/hostname", t.root / "refunds" / "link.md");
    EXPECT_EQ(code_of(sk::read_skill_directory(t.root / "refunds")), "DIRECTORY_UNREADABLE");
}

}  // namespace
