// Messages as ids with parameters (core/messages.h): every template fills in
// with its parameters, the core's refusals and the server's errors carry their
// id and parameters, and the English text is the one the API always gave.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "core/game.h"
#include "core/messages.h"
#include "core/notation.h"
#include "core/pgn.h"
#include "core/position.h"
#include "fake_client.h"
#include "server/tables/hub.h"
#include "temp_db.h"

using namespace makruk;
using namespace makruk::server;
using testing_helpers::body;
using testing_helpers::FakeClient;
namespace json = boost::json;

namespace {

// Sample values for a message's parameters: a text, a number, the first
// choice, another message.
std::vector<Message::Arg> samples(Msg m, size_t choice = 0) {
  std::vector<Message::Arg> args;
  for (const MessageParam& p : message_params(m)) {
    if (p.kind == "number") args.emplace_back(p.name, int64_t(37));
    else if (p.kind == "choice") args.emplace_back(p.name, p.choices[choice % p.choices.size()]);
    else if (p.kind == "message") args.emplace_back(p.name, Message(Msg::MoveIllegal, {{"move", "Qz9"}}));
    else args.emplace_back(p.name, "<" + p.name + "-value>");
  }
  return args;
}

TEST(Messages, IdsAreUniqueAndWellFormed) {
  std::set<std::string> ids;
  ASSERT_GT(message_count(), 100u);
  for (size_t i = 0; i < message_count(); ++i) {
    const Msg m = message_at(i);
    EXPECT_EQ(size_t(m), i);
    const std::string id(message_id(m));
    EXPECT_TRUE(ids.insert(id).second) << id;
    EXPECT_EQ(id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-"), std::string::npos) << id;
    Msg back;
    ASSERT_TRUE(message_by_id(id, back));
    EXPECT_EQ(back, m);
    EXPECT_FALSE(message_template(m).empty()) << id;
  }
  Msg none;
  EXPECT_FALSE(message_by_id("no.such-id", none));
}

TEST(Messages, EveryTemplateFormatsWithItsParameters) {
  for (size_t i = 0; i < message_count(); ++i) {
    const Msg m = message_at(i);
    const std::string id(message_id(m));
    const auto params = message_params(m);
    for (size_t choice = 0; choice < 3; ++choice) {
      const Message msg(m, samples(m, choice));
      const std::string text = msg.english();
      EXPECT_FALSE(text.empty()) << id;
      // No placeholder is left: the only braces are the template's own ({{ and }}).
      const std::string_view tmpl = message_template(m);
      const bool braces = tmpl.find("{{") != std::string_view::npos || tmpl.find("}}") != std::string_view::npos;
      EXPECT_TRUE(braces || text.find_first_of("{}") == std::string::npos) << id << ": " << text;
      for (const MessageParam& p : params) {
        EXPECT_EQ(text.find("{" + p.name), std::string::npos) << id << ": " << text;
        const std::string value = p.kind == "text"      ? "<" + p.name + "-value>"
                                  : p.kind == "number"  ? "37"
                                  : p.kind == "message" ? "illegal move 'Qz9'"
                                                        : "";
        EXPECT_NE(text.find(value), std::string::npos) << id << ": " << text;
        EXPECT_TRUE(p.kind != "choice" || !p.choices.empty()) << id;
      }
    }
    // Each choice has words of its own.
    for (const MessageParam& p : params) {
      if (p.kind != "choice" || p.choices.size() < 2) continue;
      EXPECT_NE(Message(m, samples(m, 0)).english(), Message(m, samples(m, 1)).english()) << id;
    }
  }
}

TEST(Messages, TemplatesPickWordsAndKeepBraces) {
  EXPECT_EQ(format_message("{n} {n|1:time|*:times}", {{"n", 1}}), "1 time");
  EXPECT_EQ(format_message("{n} {n|1:time|*:times}", {{"n", 3}}), "3 times");
  EXPECT_EQ(format_message("{side|white:White|black:Black}", {{"side", "purple"}}), "purple");
  EXPECT_EQ(format_message("a '{{' and {{x}}", {}), "a '{' and {x}");
  EXPECT_EQ(Message(Msg::ClaimNone, {{"n", 2}}).english(),
            "no threefold repetition to claim (this position has occurred 2 times)");
}

TEST(Messages, JsonCarriesTheIdAndParameters) {
  const Message m(Msg::PgnMove, {{"number", 2},
                                 {"side", "white"},
                                 {"move", "R\"a5"},
                                 {"reason", Message(Msg::MoveIllegal, {{"move", "R\"a5"}})}});
  const json::object o = json::parse(m.json()).as_object();
  EXPECT_EQ(o.at("msg"), "pgn.move");
  EXPECT_EQ(o.at("args").at("number"), 2);
  EXPECT_EQ(o.at("args").at("side"), "white");
  EXPECT_EQ(o.at("args").at("move"), "R\"a5");
  EXPECT_EQ(o.at("args").at("reason").at("msg"), "move.illegal");
  EXPECT_EQ(o.at("args").at("reason").at("args").at("move"), "R\"a5");
  EXPECT_EQ(o.at("args").at("reason").at("error"), "illegal move 'R\"a5'");
  // `makruk messages`: every id, its English and its parameters.
  const json::array all = json::parse(messages_json()).as_array();
  ASSERT_EQ(all.size(), message_count());
  for (const json::value& v : all) {
    if (v.at("id") != "fen.too-many-pieces") continue;
    EXPECT_EQ(v.at("english"),
              "FEN board: {side|white:White|black:Black} has more than two {piece|khon:khons|knight:knights|rook:rooks}");
    EXPECT_EQ(json::serialize(v.at("params")),
              R"([{"name":"side","kind":"choice","choices":["white","black"]},)"
              R"({"name":"piece","kind":"choice","choices":["khon","knight","rook"]}])");
  }
}

// The core's refusals: a FEN, a PGN, a move, an action.
TEST(Messages, TheCoreSaysWhyWithAnIdAndTheSameEnglish) {
  Position pos;
  Message why;
  std::string text;
  const char* noWhiteKing = "4k3/8/8/8/8/8/8/8 w - - 0 1";
  ASSERT_FALSE(pos.set(noWhiteKing, Variant::Makruk, Counting::Automatic, &why));
  ASSERT_FALSE(pos.set(noWhiteKing, Variant::Makruk, Counting::Automatic, &text));
  EXPECT_EQ(why.id, Msg::FenKings);
  EXPECT_EQ(why.arg("side")->text, "white");
  EXPECT_EQ(text, "FEN board: White must have exactly one king");
  EXPECT_EQ(why.english(), text);

  ASSERT_FALSE(read_pgn("1. e3e4 e6e5 2. Ra5", Variant::Makruk, &why));
  EXPECT_EQ(why.id, Msg::PgnMove);
  EXPECT_EQ(why.english(), "2. Ra5: illegal move 'Ra5'");
  EXPECT_EQ(why.arg("number")->text, "2");
  EXPECT_TRUE(why.arg("number")->number);
  EXPECT_EQ(why.arg("side")->text, "white");
  EXPECT_EQ(why.arg("move")->text, "Ra5");
  ASSERT_TRUE(why.arg("reason")->nested);
  EXPECT_EQ(why.arg("reason")->nested->id, Msg::MoveIllegal);
  ASSERT_FALSE(read_pgn("1. e4 Kd5", Variant::Makruk, &text));
  EXPECT_EQ(text, "1... Kd5: illegal move 'Kd5'");
  ASSERT_FALSE(read_pgn("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n", Variant::Makruk, &why));
  EXPECT_EQ(why.english(), "the FEN is not a position: FEN board: White must have exactly one king");
  EXPECT_EQ(why.arg("reason")->nested->id, Msg::FenKings);

  ASSERT_TRUE(parse_move(Position(), "e3e5", &why).is_none());
  EXPECT_EQ(why.id, Msg::MoveIllegal);
  auto game = Game::create(Variant::Makruk, Counting::Automatic, "", &why);
  ASSERT_TRUE(game);
  EXPECT_FALSE(game->apply("offer:w", &why) && game->apply("offer:w", &why));
  EXPECT_EQ(why.id, Msg::DrawAlreadyOffered);
  EXPECT_EQ(why.english(), "White has already offered a draw");
  EXPECT_EQ(typed_error_message(TypedError::Illegal, " Kb5 ").english(), "'Kb5' is not a legal move here");
}

// The server's errors, over the WebSocket and over HTTP.
class ServerMessages : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(db_.path());
    hub_ = std::make_unique<Hub>(*store_, [](std::function<void()> f) { f(); }, [this] { return clock_; });
    hub_->load();
    hub_->set_defer([](int64_t, std::function<void()>) {});
  }
  void TearDown() override {
    hub_.reset();
    store_.reset();
  }
  std::shared_ptr<FakeClient> connect(const std::string& code, const std::string& token, const std::string& ip) {
    auto c = std::make_shared<FakeClient>();
    c->ip = ip;
    hub_->on_message(c, R"({"t":"hello","code":")" + code + R"(","token":")" + token + "\"}");
    clock_ += 100;
    return c;
  }
  testing_helpers::TempDb db_{"makruk-messages"};
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hub> hub_;
  int64_t clock_ = 1764460800000;
};

TEST_F(ServerMessages, TheQuickMessageLimitAndOtherRefusalsCarryTheirIds) {
  json::object created = body(hub_->create_table(R"({"name":"Somchai"})", "10.0.0.1"));
  const std::string code(created["code"].as_string()), host(created["token"].as_string());
  json::object joined = body(hub_->join(code, R"({"name":"Dara"})", "10.0.0.2"));
  const std::string guest(joined["token"].as_string());
  auto a = connect(code, host, "10.0.0.1");
  auto b = connect(code, guest, "10.0.0.2");
  hub_->on_message(a, R"({"t":"say","phrase":"hello"})");
  hub_->on_message(a, R"({"t":"say","phrase":"thanks","id":"q2"})");
  json::object e = a->last("error");
  EXPECT_EQ(e["code"], "rate-limited");
  EXPECT_EQ(e["id"], "q2");
  EXPECT_EQ(e["msg"], "quick.too-soon");
  EXPECT_EQ(e["args"].at("seconds"), 2);
  EXPECT_EQ(e["error"], "one quick message every 2 seconds");
  // A refused move: the game's reason, with its parameters.
  hub_->on_message(a, R"({"t":"start"})");
  hub_->on_message(b, R"({"t":"move","v":0,"move":"e6e5"})");
  e = b->last("error");
  EXPECT_EQ(e["msg"], "table.not-your-turn");
  hub_->on_message(a, R"({"t":"move","v":0,"move":"e3e5"})");
  e = a->last("error");
  EXPECT_EQ(e["msg"], "move.illegal");
  EXPECT_EQ(e["args"].at("move"), "e3e5");
  EXPECT_EQ(e["error"], "illegal move 'e3e5'");
  hub_->on_message(a, R"({"t":"move","v":7,"move":"e3e4"})");
  e = a->last("error");
  EXPECT_EQ(e["msg"], "table.version");
  EXPECT_EQ(e["args"].at("version"), 0);
  EXPECT_EQ(e["args"].at("sent"), 7);
  EXPECT_EQ(e["error"], "the game is at version 0, not 7");
  hub_->on_message(a, "{nonsense");
  EXPECT_EQ(a->last("error")["msg"], "request.json");
}

TEST_F(ServerMessages, HttpErrorsCarryTheirIds) {
  Answer r = hub_->create_table(R"({"name":"   "})", "10.0.0.1");
  EXPECT_EQ(r.outcome, Outcome::BadRequest);
  json::object o = body(r);
  EXPECT_EQ(o["code"], "bad-request");
  EXPECT_EQ(o["msg"], "name.length");
  EXPECT_EQ(o["args"].at("max"), 24);
  EXPECT_EQ(o["error"], "the name must have 1 to 24 characters");
  o = body(hub_->create_table(R"({"name":"Noi","fen":"4k3/8/8/8/8/8/8/8 w - - 0 1"})", "10.0.0.1"));
  EXPECT_EQ(o["msg"], "fen.kings");
  EXPECT_EQ(o["args"].at("side"), "white");
  EXPECT_EQ(o["error"], "FEN board: White must have exactly one king");
  r = hub_->get_table("ZZZZZZ", "10.0.0.1", "", "");
  EXPECT_EQ(r.outcome, Outcome::NotFound);
  o = body(r);
  EXPECT_EQ(o["msg"], "table.unknown");
  EXPECT_EQ(o["args"].at("code"), "ZZZZZZ");
  EXPECT_EQ(o["error"], "no party with code 'ZZZZZZ'");
  // A full table: the table comes too.
  json::object created = body(hub_->create_table(R"({"name":"Somchai"})", "10.0.0.1"));
  const std::string code(created["code"].as_string());
  hub_->join(code, R"({"name":"Dara"})", "10.0.0.2");
  r = hub_->join(code, R"({"name":"Noi"})", "10.0.0.3");
  EXPECT_EQ(r.outcome, Outcome::Conflict);
  o = body(r);
  EXPECT_EQ(o["msg"], "table.full");
  EXPECT_TRUE(o.contains("party"));
}

}  // namespace
