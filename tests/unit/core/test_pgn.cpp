// PGN out and in: what a game's PGN says, round trips over random games in
// both variants (also from set-up positions), the errors of bad input, and
// the moves of exported games replayed by Debian's Fairy-Stockfish.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "core/movegen.h"
#include "core/notation.h"
#include "core/pgn.h"

using namespace makruk;

namespace {

Game new_game(Variant v, std::string_view fen = "", Counting c = Counting::Automatic) {
  std::string error;
  auto g = Game::create(v, c, fen, &error);
  EXPECT_TRUE(g) << error;
  return *g;
}

void apply(Game& g, std::initializer_list<const char*> actions) {
  for (const char* a : actions) {
    std::string error;
    ASSERT_TRUE(g.apply(a, &error)) << a << ": " << error;
  }
}

// A game of random legal moves, up to `plies`, ending early if the game does.
Game random_game(Variant v, std::mt19937& rng, int plies, std::string_view fen = "") {
  Game g = new_game(v, fen);
  for (int i = 0; i < plies && !g.over(); ++i) {
    MoveList legal = g.legal_moves();
    if (legal.size == 0) break;
    std::string error;
    EXPECT_TRUE(g.play(legal.moves[rng() % unsigned(legal.size)], &error)) << error;
  }
  return g;
}

std::vector<std::string> moves_of(const Game& g) {
  std::vector<std::string> out;
  for (const std::string& a : g.record())
    if (is_move_action(a)) out.push_back(a);
  return out;
}

}  // namespace

TEST(Pgn, AGameWritesItsTagsMovesActionsAndEnd) {
  Game g = new_game(Variant::Makruk);
  // A quick mate: 1. Nd2 Nd7 2. Nc4 Ne7 3. Nxd6#
  apply(g, {"offer:w", "decline:b", "b1d2", "b8d7", "d2c4", "g8e7", "c4d6"});
  ASSERT_TRUE(g.over());
  const std::string pgn = write_pgn(g, {{"Event", "Casual game"}, {"Site", "https://makruk.example/g/x"},
                                        {"Date", "2026.12.01"}, {"White", "Somchai"}, {"Black", "Dara"},
                                        {"Result", "0-1"}, {"Annotator", "the table"}});
  EXPECT_EQ(pgn,
            "[Event \"Casual game\"]\n[Site \"https://makruk.example/g/x\"]\n[Date \"2026.12.01\"]\n"
            "[Round \"?\"]\n[White \"Somchai\"]\n[Black \"Dara\"]\n[Result \"1-0\"]\n[Annotator \"the table\"]\n"
            "[Variant \"makruk\"]\n[Termination \"checkmate\"]\n[Counting \"auto\"]\n\n"
            "{White offers a draw} {Black declines the draw} 1. Nd2 Nd7 2. Nc4 Ne7 3. Nxd6#\n{checkmate} 1-0\n");
}

TEST(Pgn, AGameCalledOffHasNoResult) {
  Game g = new_game(Variant::Makruk);
  apply(g, {"e3e4", "abort:b"});
  const std::string pgn = write_pgn(g, {});
  EXPECT_NE(pgn.find("[Result \"*\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Termination \"aborted\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("1. e4 {Black made no first move: the game is called off} {aborted} *"), std::string::npos) << pgn;
}

TEST(Pgn, AGameLostOnTimeSaysTimeForfeit) {
  Game g = new_game(Variant::Makruk);
  apply(g, {"e3e4", "time:b"});
  const std::string pgn = write_pgn(g, {});
  EXPECT_NE(pgn.find("[Result \"1-0\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Termination \"time forfeit\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("1. e4 {Black's time ran out} {time forfeit} 1-0"), std::string::npos) << pgn;
}

TEST(Pgn, ASetUpStartGivesFenAndSetUpAndNumbersFromIt) {
  // Black to move at move 30, with counting by declaration.
  const std::string fen = "8/8/4k3/8/8/3MK3/8/7R b - - 0 30";
  Game g = new_game(Variant::Makruk, fen, Counting::Declaration);
  apply(g, {"e6d5", "count:b", "h1h5"});
  const std::string pgn = write_pgn(g, {});
  EXPECT_NE(pgn.find("[FEN \"" + g.start_fen().substr(0, g.start_fen().find(' ')) + " b"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[SetUp \"1\"]"), std::string::npos);
  EXPECT_NE(pgn.find("[Counting \"declare\"]"), std::string::npos);
  EXPECT_NE(pgn.find("[White \"?\"]"), std::string::npos);
  EXPECT_NE(pgn.find("30... Kd5 {Black starts counting} 31. Rh5+ *"), std::string::npos) << pgn;
  std::string error;
  auto back = read_pgn(pgn, Variant::Ouk, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->variant, Variant::Makruk);
  EXPECT_EQ(back->moves, moves_of(g));
  EXPECT_EQ(back->result, "*");
}

TEST(Pgn, RandomGamesOfBothVariantsComeBackTheSame) {
  std::mt19937 rng(7);
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    for (int i = 0; i < 60; ++i) {
      Game g = random_game(v, rng, 30 + int(rng() % 170));
      // And from a position reached that way, as a set-up start.
      Game from = random_game(v, rng, int(rng() % 60), g.position().fen());
      for (const Game* x : {&g, &from}) {
        const std::string pgn = write_pgn(*x, {{"White", "A"}, {"Black", "B"}});
        std::string error;
        auto back = read_pgn(pgn, v == Variant::Makruk ? Variant::Ouk : Variant::Makruk, &error);
        ASSERT_TRUE(back) << error << "\n" << pgn;
        EXPECT_EQ(back->variant, v);
        EXPECT_EQ(back->moves, moves_of(*x)) << pgn;
        EXPECT_EQ(back->result, std::string(result_string(x->result())));
        for (size_t k = 0, col = 0; k < pgn.size(); ++k, ++col) {
          if (pgn[k] == '\n') col = 0;
          ASSERT_LE(col, 80u) << "lines of at most 80 characters";
        }
        // Written again from what was read: the same text.
        auto again = Game::create(v, x->counting(), back->fen, &error);
        ASSERT_TRUE(again) << error;
        for (const std::string& m : back->moves) ASSERT_TRUE(again->apply(m, &error)) << error;
        if (!x->over()) {
          EXPECT_EQ(write_pgn(*again, {{"White", "A"}, {"Black", "B"}}), pgn);
        }
      }
    }
  }
}

TEST(Pgn, PlainMoveListsCoordinatesAndFensAreReadToo) {
  std::string error;
  auto plain = read_pgn("e4 d5 exd5 Nd7", Variant::Makruk, &error);
  ASSERT_TRUE(plain) << error;
  EXPECT_EQ(plain->moves, (std::vector<std::string>{"e3e4", "d6d5", "e4d5", "b8d7"}));
  auto coords = read_pgn("1.e3e4 d6d5\n2.e4d5", Variant::Makruk, &error);
  ASSERT_TRUE(coords) << error;
  EXPECT_EQ(coords->moves, (std::vector<std::string>{"e3e4", "d6d5", "e4d5"}));
  auto fen = read_pgn("  8/8/4k3/8/8/3MK3/8/7R b - - 0 30\n", Variant::Makruk, &error);
  ASSERT_TRUE(fen) << error;
  EXPECT_TRUE(fen->moves.empty());
  EXPECT_EQ(fen->fen.substr(0, 21), "8/8/4k3/8/8/3MK3/8/7R");
  // Comments, variations, NAGs, annotations, numbers glued to moves, a
  // byte-order mark, and a Variant tag in another spelling.
  auto rich = read_pgn("\xEF\xBB\xBF[Variant \"Cambodian\"]\n[Result \"1-0\"]\n\n"
                       "1.e4 {a comment} (1.d4 d5 (1...Nd7)) 1...d5 $1 2.exd5!? ; to the end\nNd7 *",
                       Variant::Makruk, &error);
  ASSERT_TRUE(rich) << error;
  EXPECT_EQ(rich->variant, Variant::Ouk);
  EXPECT_EQ(rich->moves, (std::vector<std::string>{"e3e4", "d6d5", "e4d5", "b8d7"}));
  EXPECT_EQ(rich->result, "*");
  EXPECT_EQ(read_pgn("", Variant::Makruk, &error)->moves.size(), 0u);
}

// The form pychess gives its Makruk games (Fairy-Stockfish's SAN): the
// Variant capitalised, FEN and SetUp even for the usual start, clocks in
// comments, ratings and a time control.
TEST(Pgn, AGameInThePychessFormLoads) {
  const char* pgn =
      "[Event \"Rated Makruk game\"]\n[Site \"https://www.pychess.org/Ab12Cd34\"]\n[Date \"2026.11.30\"]\n"
      "[Round \"-\"]\n[White \"somchai\"]\n[Black \"Fairy-Stockfish\"]\n[Result \"1-0\"]\n"
      "[TimeControl \"300+3\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1800\"]\n[Variant \"Makruk\"]\n"
      "[FEN \"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1\"]\n[SetUp \"1\"]\n\n"
      "1. Nd2 {[%clk 0:05:00]} Nd7 {[%clk 0:05:01]} 2. Nc4 {[%clk 0:05:02]} Ne7 {[%clk 0:05:03]}\n"
      "3. Nxd6# {[%clk 0:05:04]} 1-0\n";
  std::string error;
  auto g = read_pgn(pgn, Variant::Ouk, &error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ(g->variant, Variant::Makruk);
  EXPECT_EQ(g->moves, (std::vector<std::string>{"b1d2", "b8d7", "d2c4", "g8e7", "c4d6"}));
  EXPECT_EQ(g->result, "1-0");
  EXPECT_EQ(g->tags.size(), 13u);
}

TEST(Pgn, BadInputIsRefusedNamingTheMove) {
  std::string error;
  EXPECT_FALSE(read_pgn("1. e4 d5 2. Kb5 Nd7", Variant::Makruk, &error));
  EXPECT_EQ(error, "2. Kb5: illegal move 'Kb5'");
  EXPECT_FALSE(read_pgn("1. e4 d5 2. exd5 Zd8", Variant::Makruk, &error));
  EXPECT_EQ(error, "2... Zd8: unreadable move 'Zd8' (no notation the importer knows)");
  // Q is the met elsewhere (PlayOK): well-formed, and illegal there.
  EXPECT_FALSE(read_pgn("1. e4 d5 2. exd5 Qd8", Variant::Makruk, &error));
  EXPECT_EQ(error, "2... Qd8: illegal move 'Qd8'");
  // Well-formed coordinates that are not legal there are illegal, not malformed.
  EXPECT_FALSE(read_pgn("e3e4 e6e4", Variant::Makruk, &error));
  EXPECT_EQ(error, "1... e6e4: illegal move 'e6e4'");
  EXPECT_FALSE(read_pgn("[Variant \"chess\"]\n1. e4", Variant::Makruk, &error));
  EXPECT_EQ(error, "unknown variant 'chess' (makruk or cambodian)");
  EXPECT_FALSE(read_pgn("[Event \"unclosed]\n1. e4", Variant::Makruk, &error));
  EXPECT_NE(error.find("malformed tag"), std::string::npos) << error;
  EXPECT_FALSE(read_pgn("[FEN \"8/8/8 w\"]\n", Variant::Makruk, &error));
  EXPECT_NE(error.find("the FEN is not a position"), std::string::npos) << error;
  EXPECT_FALSE(read_pgn("1. e4 { never closed", Variant::Makruk, &error));
  EXPECT_EQ(error, "a comment '{' is never closed");
  EXPECT_FALSE(read_pgn("1. e4 (d5", Variant::Makruk, &error));
  EXPECT_FALSE(read_pgn("1. e4 )", Variant::Makruk, &error));
  // After mate there is nothing to play.
  EXPECT_FALSE(read_pgn("1. Nd2 Nd7 2. Nc4 Ne7 3. Nxd6# Sf6", Variant::Makruk, &error));
  EXPECT_EQ(error, "3... Sf6: the game is over there (no legal move)");
  EXPECT_FALSE(read_pgn(std::string(1000001, ' '), Variant::Makruk, &error));
}

// The records people have, in the forms other places write them: each
// reads whole, to the same moves as our own notation.
TEST(Pgn, PlayOkAndSchemingMindLettersAreRead) {
  std::string error;
  // B for the khon, Q for the met; "=" draw marks and "½-½" (SchemingMind).
  auto g = read_pgn("[Event \"PlayOK\"]\n\n1. Bc2 Bc7 2. Qf2 Qe7 = 3. e4 \u00BD-\u00BD", Variant::Makruk, &error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ(g->moves, (std::vector<std::string>{"c1c2", "c8c7", "e1f2", "d8e7", "e3e4"}));
  EXPECT_EQ(g->result, "1/2-1/2");
  // Promotions written =P, =Q, =F, =M or a letter after the square; the
  // promoted pawn moving on as P.
  const std::string promote = "[FEN \"4k3/8/8/4P3/8/8/8/3K4 w - - 0 1\"]\n\n";
  for (const char* written : {"e6=P", "e6=Q", "e6=F", "e6=M", "e6M", "e6"}) {
    auto p = read_pgn(promote + "1. " + written + " Kd8 2. Pf7", Variant::Makruk, &error);
    ASSERT_TRUE(p) << written << ": " << error;
    EXPECT_EQ(p->moves, (std::vector<std::string>{"e5e6m", "e8d8", "e6f7"})) << written;
  }
  // P read both ways: a pawn to c5 and the met to c5 are both legal, so the
  // importer says so instead of guessing; a pawn-only P is fine.
  EXPECT_FALSE(read_pgn("[FEN \"4k3/8/8/8/2PM4/8/8/3K4 w - - 0 1\"]\n1. Pc5", Variant::Makruk, &error));
  EXPECT_EQ(error, "1. Pc5: ambiguous SAN 'Pc5'");
  auto pawn = read_pgn("[FEN \"4k3/8/8/8/2P5/8/8/3K4 w - - 0 1\"]\n1. Pc5", Variant::Makruk, &error);
  ASSERT_TRUE(pawn) << error;
  EXPECT_EQ(pawn->moves, (std::vector<std::string>{"c4c5"}));
}

TEST(Pgn, LongAlgebraicCapturesAndMoveNumbersAsOthersWriteThem) {
  std::string error;
  // chessvariants.com: spaced long algebraic, "1)" numbers, annotations apart.
  auto spaced = read_pgn("1)   c 3 - c 4   c 6 - c 5\n2)   N b 1 - d 2 !?   N b 8 - d 7", Variant::Makruk, &error);
  ASSERT_TRUE(spaced) << error;
  EXPECT_EQ(spaced->moves, (std::vector<std::string>{"c3c4", "c6c5", "b1d2", "b8d7"}));
  // Captures with ':' or '×', a lower-case knight, no numbers at all, and
  // no-break spaces copied from a web page.
  for (const char* capture : {"exd5", "e:d5", "e\u00D7d5", "ed5", "e4xd5", "e4-d5"}) {
    auto c = read_pgn(std::string("e4\u00A0d5 ") + capture + " nd7", Variant::Makruk, &error);
    ASSERT_TRUE(c) << capture << ": " << error;
    EXPECT_EQ(c->moves, (std::vector<std::string>{"e3e4", "d6d5", "e4d5", "b8d7"})) << capture;
  }
  // Thai digits in the numbers, and our Thai notation.
  auto thai = read_pgn("\u0E51. e4 d5 \u0E52. exd5", Variant::Makruk, &error);
  ASSERT_TRUE(thai) << error;
  EXPECT_EQ(thai->moves.size(), 3u);
  std::mt19937 rng(11);
  for (int i = 0; i < 20; ++i) {
    Game game = random_game(Variant::Makruk, rng, 40);
    Position pos;
    ASSERT_TRUE(pos.set(Position::start_fen(Variant::Makruk), Variant::Makruk, Counting::Automatic, nullptr));
    std::string text;
    int ply = 0;
    for (const std::string& m : moves_of(game)) {
      if (ply % 2 == 0) text += std::to_string(ply / 2 + 1) + ". ";
      Move move = parse_move(pos, m);
      text += move_to_thai_san(pos, move) + " ";
      pos.do_move(move);
      ++ply;
    }
    auto back = read_pgn(text, Variant::Makruk, &error);
    ASSERT_TRUE(back) << error << "\n" << text;
    EXPECT_EQ(back->moves, moves_of(game)) << text;
  }
}

TEST(Pgn, TagNamesInAnyCaseAndAFenLineBeforeTheMoves) {
  std::string error;
  auto ouk = read_pgn("[variant \"cambodian\"]\n[result \"0-1\"]\n\n1. e4", Variant::Makruk, &error);
  ASSERT_TRUE(ouk) << error;
  EXPECT_EQ(ouk->variant, Variant::Ouk);
  auto fen = read_pgn("[fen \"4k3/8/8/4P3/8/8/8/3K4 w - - 0 1\"]\n1. e6", Variant::Makruk, &error);
  ASSERT_TRUE(fen) << error;
  EXPECT_EQ(fen->moves, (std::vector<std::string>{"e5e6m"}));
  auto line = read_pgn("4k3/8/8/4P3/8/8/8/3K4 w - - 0 1\r\n1. e6 Kd8\r\n", Variant::Makruk, &error);
  ASSERT_TRUE(line) << error;
  EXPECT_EQ(line->fen.substr(0, 17), "4k3/8/8/4P3/8/8/8");
  EXPECT_EQ(line->moves, (std::vector<std::string>{"e5e6m", "e8d8"}));
}

// A collection: each game's tags begin it; a line that looks like a tag in a
// comment does not; a text without tags after moves is one game.
TEST(Pgn, ACollectionIsSplitIntoItsGames) {
  const std::string text =
      "[Event \"One\"]\n\n1. e4 d5 {a comment\n[not a tag]} 2. exd5 *\n\n"
      "[Event \"Two\"]\n[Variant \"cambodian\"]\n\n1. Nd2 ; [nor this]\n1-0\n"
      "[Event \"Three\"]\n1. e4 *";
  auto games = split_pgn_games(text);
  ASSERT_EQ(games.size(), 3u);
  std::string error;
  auto one = read_pgn(games[0], Variant::Makruk, &error);
  ASSERT_TRUE(one) << error;
  EXPECT_EQ(one->moves.size(), 3u);
  auto two = read_pgn(games[1], Variant::Makruk, &error);
  ASSERT_TRUE(two) << error;
  EXPECT_EQ(two->variant, Variant::Ouk);
  EXPECT_EQ(two->result, "1-0");
  EXPECT_EQ(read_pgn(games[2], Variant::Makruk, &error)->moves.size(), 1u);
  EXPECT_EQ(split_pgn_games("e4 d5 exd5").size(), 1u);
  EXPECT_EQ(split_pgn_games("").size(), 1u);
}

// Exported games replayed by Debian's Fairy-Stockfish (11.1, whose Makruk
// rules agree with ours): the moves read back from our PGN lead it to the same
// position. (Its Ouk Chatrang rules are outdated: Makruk only.)
TEST(Pgn, FairyStockfishReplaysExportedGamesToTheSamePosition) {
  const char* engine = "/usr/games/fairy-stockfish";
  if (!std::filesystem::exists(engine)) GTEST_SKIP() << "fairy-stockfish is not installed";
  std::mt19937 rng(11);
  for (int i = 0; i < 12; ++i) {
    Game g = random_game(Variant::Makruk, rng, 40 + int(rng() % 120));
    std::string error;
    auto back = read_pgn(write_pgn(g, {}), Variant::Makruk, &error);
    ASSERT_TRUE(back) << error;
    std::string script = "printf 'uci\\nsetoption name UCI_Variant value makruk\\nposition startpos moves";
    for (const std::string& m : back->moves) script += " " + m;
    script += "\\nd\\nquit\\n' | " + std::string(engine) + " 2>/dev/null | grep '^Fen: '";
    FILE* p = popen(script.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[512] = {0};
    std::string line = fgets(buf, sizeof buf, p) ? buf : "";
    pclose(p);
    // The placement and the side to move (the count fields are written
    // differently, and it marks no promoted pawn with '~').
    auto head = [](std::string fen) {
      std::erase(fen, '~');
      return fen.substr(0, fen.find(' ', fen.find(' ') + 1));
    };
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(head(line.substr(5)), head(g.position().fen())) << "game " << i;
  }
}
