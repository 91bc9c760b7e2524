// SPDX-License-Identifier: BSL-1.0
// The skills extension on the server: the declaration, skills/list and skills/get, reading a
// skill's files as resources, resources/directory/read with its pages, and what add_skill
// refuses (a malformed entry, a URI taken, a nested skill's file with other bytes).
#include "mcp/fixture.hpp"
#include "mcp/stateless_support.hpp"

#include <candor/skills/skill.hpp>

namespace candor::test {
namespace {

using boost::json::object;
namespace sk = candor::skills;

mcp::skill_entry skill(const char* path, const char* name, std::vector<sk::skill_file> more = {}) {
    more.push_back({"SKILL.md", std::string("---\nname: ") + name + "\ndescription: The " + name + " skill\n---\n"});
    auto r = sk::make_skill(path, std::move(more));
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(*r);
}

class Skills : public ::testing::Test {
protected:
    std::shared_ptr<server_log> log = std::make_shared<server_log>();
    boost::asio::io_context ioc;
    std::unique_ptr<mcp::server> srv;
    std::unique_ptr<mcp::memory_client> client;

    void SetUp() override {
        auto o = test_options(log);
        o.list_page_size = 2;
        srv = std::make_unique<mcp::server>(o);
        client = std::make_unique<mcp::memory_client>(*srv, ioc, mcp::connection_options{{"alice"}, ""});
    }
    void publish_fixtures() {
        srv->add_skill(skill("git-workflow", "git-workflow")).value();
        srv->add_skill(skill("acme/billing/refunds", "refunds",
                             {{"templates/approved.md", "ok"},
                              {"templates/declined.md", "no"},
                              {"templates/regional/eu.md", "eu"},
                              {"templates.md", "index"},
                              {"notes.txt", "n"}}))
            .value();
    }
    boost::json::value request(std::string_view method, object params = {}) {
        params["_meta"] = modern_meta(object{}, "skills-test");
        return client->request(method, std::move(params));
    }
    // Every child of `dir`, page after page.
    std::vector<std::string> children(const std::string& dir, int* pages = nullptr) {
        std::vector<std::string> out;
        object params{{"uri", dir}};
        for (int page = 1; page <= 20; ++page) {
            auto r = request("resources/directory/read", params);
            const auto resources = at(r, "result", "resources");
            for (const auto& c : resources.as_array())
                out.push_back(std::string(c.at("uri").as_string()) +
                              (c.at("mimeType") == "inode/directory" ? "/" : ""));
            if (pages) *pages = page;
            if (!at(r, "result").as_object().contains("nextCursor")) break;
            params["cursor"] = at(r, "result", "nextCursor");
        }
        return out;
    }
};

TEST_F(Skills, WithoutSkillsTheExtensionIsNeitherDeclaredNorServed) {
    auto d = request("server/discover");
    EXPECT_FALSE(at(d, "result", "capabilities").as_object().contains("extensions")) << d;
    for (const char* m : {"skills/list", "skills/get", "resources/directory/read"})
        EXPECT_EQ(at(request(m, object{{"uri", "skill://x/SKILL.md"}}), "error", "code"), -32601) << m;
}

TEST_F(Skills, TheExtensionIsDeclaredWithDirectoryReadOnBothRevisions) {
    publish_fixtures();
    auto d = request("server/discover");
    EXPECT_EQ(at(at(d, "result", "capabilities", "extensions"), "io.modelcontextprotocol/skills"),
              boost::json::parse(R"({"directoryRead":true})"));
    EXPECT_TRUE(at(d, "result", "capabilities").as_object().contains("resources"));
    mcp::memory_client legacy(*srv, ioc, mcp::connection_options{{"bob"}, ""});
    auto init = legacy.request("initialize", object{{"protocolVersion", "2025-11-25"},
                                                    {"capabilities", object{}},
                                                    {"clientInfo", object{{"name", "t"}, {"version", "1"}}}});
    EXPECT_TRUE(
        at(init, "result", "capabilities", "extensions").as_object().contains("io.modelcontextprotocol/skills"));
}

TEST_F(Skills, TheListIsPagedAndEachEntryIsWhole) {
    publish_fixtures();
    srv->add_skill(skill("zeta", "zeta")).value();
    std::vector<boost::json::value> entries;
    object params;
    for (int i = 0; i < 5; ++i) {
        auto r = request("skills/list", params);
        EXPECT_EQ(at(r, "result", "resultType"), "complete") << r;
        EXPECT_TRUE(at(r, "result", "ttlMs").is_number()) << r;
        EXPECT_TRUE(at(r, "result", "cacheScope").is_string()) << r;
        const auto skills = at(r, "result", "skills");
        for (const auto& e : skills.as_array()) entries.push_back(e);
        if (!at(r, "result").as_object().contains("nextCursor")) break;
        params["cursor"] = at(r, "result", "nextCursor");
    }
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(at(entries[0], "uri"), "skill://acme/billing/refunds/SKILL.md");
    EXPECT_EQ(at(entries[0], "resources").as_array().size(), 6u);
    EXPECT_EQ(at(item(at(entries[0], "resources"), 0), "uri"), "skill://acme/billing/refunds/SKILL.md");
    EXPECT_EQ(at(entries[1], "frontmatter", "name"), "git-workflow");
    EXPECT_EQ(at(entries[2], "uri"), "skill://zeta/SKILL.md");
    EXPECT_EQ(at(request("skills/list", object{{"cursor", "forged"}}), "error", "code"), -32602);
}

TEST_F(Skills, GetAnswersOneEntryAndMinus32602ForAnUnknownUri) {
    publish_fixtures();
    auto r = request("skills/get", object{{"uri", "skill://git-workflow/SKILL.md"}});
    EXPECT_EQ(at(r, "result", "skill", "uri"), "skill://git-workflow/SKILL.md");
    EXPECT_EQ(at(at(r, "result", "skill"), "frontmatter", "description"), "The git-workflow skill");
    EXPECT_TRUE(at(r, "result", "ttlMs").is_number());
    EXPECT_FALSE(at(r, "result").as_object().contains("nextCursor"));
    EXPECT_EQ(at(request("skills/get", object{{"uri", "skill://nope/SKILL.md"}}), "error", "code"), -32602);
    EXPECT_EQ(at(request("skills/get", object{{"uri", "skill://git-workflow"}}), "error", "code"), -32602);
    EXPECT_EQ(at(request("skills/get"), "error", "code"), -32602);
}

TEST_F(Skills, AFileReadsBackWithTheBytesItsDigestCovers) {
    publish_fixtures();
    auto r = request("resources/read", object{{"uri", "skill://acme/billing/refunds/templates/regional/eu.md"}});
    EXPECT_EQ(at(item(at(r, "result", "contents"), 0), "text"), "eu");
    EXPECT_EQ(at(item(at(r, "result", "contents"), 0), "mimeType"), "text/markdown");
    auto md = request("resources/read", object{{"uri", "skill://git-workflow/SKILL.md"}});
    EXPECT_EQ(at(item(at(md, "result", "contents"), 0), "text"),
              "---\nname: git-workflow\ndescription: The git-workflow skill\n---\n");
}

TEST_F(Skills, ADirectoryListsItsDirectChildrenPageByPage) {
    publish_fixtures();
    int pages = 0;
    EXPECT_EQ(children("skill://acme/billing/refunds", &pages),
              (std::vector<std::string>{
                  "skill://acme/billing/refunds/SKILL.md", "skill://acme/billing/refunds/notes.txt",
                  "skill://acme/billing/refunds/templates.md", "skill://acme/billing/refunds/templates/"}));
    EXPECT_EQ(pages, 2);  // two children a page
    EXPECT_EQ(children("skill://acme/billing/refunds/templates"),
              (std::vector<std::string>{"skill://acme/billing/refunds/templates/approved.md",
                                        "skill://acme/billing/refunds/templates/declined.md",
                                        "skill://acme/billing/refunds/templates/regional/"}));
    EXPECT_EQ(children("skill://acme"), std::vector<std::string>{"skill://acme/billing/"});
    // A page that ends on a directory resumes after everything under it.
    EXPECT_EQ(children("skill://acme/billing/refunds/templates/regional"),
              std::vector<std::string>{"skill://acme/billing/refunds/templates/regional/eu.md"});
    for (const char* not_a_directory :
         {"skill://acme/billing/refunds/SKILL.md", "skill://nowhere", "skill://acme/bill", "skill:", "skill://"})
        EXPECT_EQ(at(request("resources/directory/read", object{{"uri", not_a_directory}}), "error", "code"), -32602)
            << not_a_directory;
    // A cursor of one directory is refused by another.
    auto first = request("resources/directory/read", object{{"uri", "skill://acme/billing/refunds"}});
    auto other = request("resources/directory/read",
                         object{{"uri", "skill://git-workflow"}, {"cursor", at(first, "result", "nextCursor")}});
    EXPECT_EQ(at(other, "error", "code"), -32602);
}

TEST_F(Skills, ANestedSkillSharesItsFilesWithTheSkillAroundIt) {
    // The enclosing skill lists the nested skill's files too (the same bytes): one resource.
    srv->add_skill(
           skill("outer", "outer", {{"inner/SKILL.md", "---\nname: inner\ndescription: The inner skill\n---\n"}}))
        .value();
    EXPECT_TRUE(srv->add_skill(skill("outer/inner", "inner")));
    EXPECT_EQ(at(at(request("skills/get", object{{"uri", "skill://outer/inner/SKILL.md"}}), "result"), "skill", "uri"),
              "skill://outer/inner/SKILL.md");
    // Other bytes under a URI already served are refused, and nothing of that skill is kept.
    auto taken = skill("outer2", "outer2", {{"a.md", "a"}});
    srv->add_skill(skill("outer2/inner", "inner", {{"b.md", "b"}})).value();
    taken.files.push_back(taken.files.back());
    taken.files.back().info.uri = taken.files.back().contents.uri = "skill://outer2/inner/b.md";
    taken.files.back().digest = "sha256:" + std::string(64, '0');
    EXPECT_EQ(srv->add_skill(std::move(taken)).error(), mcp::registration_error::duplicate_name);
    auto listed = request("resources/read", object{{"uri", "skill://outer2/a.md"}});
    EXPECT_EQ(at(listed, "error", "code"), -32602) << listed;
}

TEST_F(Skills, AddSkillRefusesWhatBreaksTheRules) {
    auto good = skill("refunds", "refunds");
    auto no_md = good;
    no_md.uri = "skill://refunds/README.md";
    EXPECT_EQ(srv->add_skill(no_md).error(), mcp::registration_error::invalid_skill);
    auto wrong_name = good;
    wrong_name.frontmatter["name"] = "other";
    EXPECT_EQ(srv->add_skill(wrong_name).error(), mcp::registration_error::invalid_skill);
    auto outside = good;
    outside.files.push_back(outside.files[0]);
    outside.files.back().info.uri = outside.files.back().contents.uri = "skill://elsewhere/x.md";
    EXPECT_EQ(srv->add_skill(outside).error(), mcp::registration_error::invalid_skill);
    auto bad_digest = good;
    bad_digest.files[0].digest = "sha256:ABC";
    EXPECT_EQ(srv->add_skill(bad_digest).error(), mcp::registration_error::invalid_skill);
    auto twice = good;
    twice.files.push_back(twice.files[0]);
    EXPECT_EQ(srv->add_skill(twice).error(), mcp::registration_error::invalid_skill);
    // A URI a resource holds already, and a file where a directory is.
    srv->add_resource({"skill://taken/SKILL.md", "taken", "", "", "", {}},
                      [](const mcp::resource_request&)
                          -> boost::asio::awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                          co_return std::nullopt;
                      })
        .value();
    EXPECT_EQ(srv->add_skill(skill("taken", "taken")).error(), mcp::registration_error::duplicate_name);
    // A URI is a file or a directory, never both, whichever comes first.
    srv->add_skill(skill("a", "a", {{"b", "file"}})).value();
    EXPECT_EQ(srv->add_skill(skill("a/b/c", "c")).error(), mcp::registration_error::duplicate_name);
    srv->add_skill(skill("x/y/z", "z")).value();
    EXPECT_EQ(srv->add_skill(skill("x", "x", {{"y", "file"}})).error(), mcp::registration_error::duplicate_name);
    EXPECT_EQ(srv->add_skill(good).has_value(), true);
    EXPECT_EQ(srv->add_skill(good).error(), mcp::registration_error::duplicate_name);
}

}  // namespace
}  // namespace candor::test
