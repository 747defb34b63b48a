// The `makruk` command: one binary, one subcommand per job.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/game.h"
#include "core/messages.h"
#include "core/notation.h"
#include "core/perft.h"
#include "core/pgn.h"
#include "engine/bench.h"
#include "engine/egtb.h"
#include "engine/label.h"
#include "engine/match.h"
#include "engine/nnue_train.h"
#include "engine/openings.h"
#include "engine/spsa.h"
#include "engine/tune.h"
#include "engine/uci.h"
#include "server/net/http_server.h"
#include "server/stores/backup.h"
#include "json.h"

using namespace makruk;

namespace {

constexpr int EXIT_BAD_INPUT = 2;

struct Options {
  std::string variant = "makruk";
  std::string fen;
  std::string counting = "auto";
  bool divide = false;
  int depth = 1;
  std::vector<std::string> actions;
};

int run_perft(const Options& o) {
  Variant v;
  if (!parse_variant(o.variant, v)) {
    std::cerr << "makruk perft: unknown variant '" << o.variant << "' (makruk, ouk, cambodian, ouk-chatrang)\n";
    return EXIT_BAD_INPUT;
  }
  Position pos;
  std::string error;
  if (!pos.set(o.fen.empty() ? Position::start_fen(v) : o.fen, v, Counting::Automatic, &error)) {
    std::cerr << "makruk perft: " << error << "\n";
    return EXIT_BAD_INPUT;
  }
  auto t0 = std::chrono::steady_clock::now();
  uint64_t total = 0;
  if (o.divide && o.depth > 0) {
    for (auto& [m, n] : perft_divide(pos, o.depth)) {
      std::cout << move_to_string(m) << ": " << n << "\n";
      total += n;
    }
  } else {
    total = perft(pos, o.depth);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "time " << int(secs * 1000) << " ms, " << uint64_t(total / (secs > 0 ? secs : 1e-9))
            << " nodes/s\n";
  std::cout << total << std::endl;
  return 0;
}

void print_adjudicate_error(const std::string& message, int ply) {
  json::Writer w;
  w.begin_object();
  w.key("error").string(message);
  w.key("ply").number(ply);
  w.end_object();
  std::cout << w.str() << std::endl;
}

// `makruk pgn`: every game of a file of records, checked, and printed as
// JSON (one line each), as PGN, or as a list of moves in one notation.
struct PgnOptions {
  std::string file = "-";
  std::string variant = "makruk";
  std::string to = "json";
};

int run_pgn(const PgnOptions& o) {
  Variant fallback;
  if (!parse_variant(o.variant, fallback)) {
    std::cerr << "makruk pgn: unknown variant '" << o.variant << "' (makruk, ouk, cambodian, ouk-chatrang)\n";
    return EXIT_BAD_INPUT;
  }
  if (o.to != "json" && o.to != "pgn" && o.to != "san" && o.to != "thai" && o.to != "thai-local" && o.to != "khmer" &&
      o.to != "coords") {
    std::cerr << "makruk pgn: unknown form '" << o.to << "' (json, pgn, san, thai, thai-local, khmer, coords)\n";
    return EXIT_BAD_INPUT;
  }
  std::string text;
  {
    std::ifstream file;
    if (o.file != "-") {
      file.open(o.file, std::ios::binary);
      if (!file) {
        std::cerr << "makruk pgn: cannot read '" << o.file << "'\n";
        return EXIT_BAD_INPUT;
      }
    }
    std::istream& in = o.file == "-" ? std::cin : file;
    constexpr size_t MOST = 256u << 20;  // a large collection, not a disk
    std::string chunk(1 << 16, '\0');
    while (in.read(chunk.data(), std::streamsize(chunk.size())) || in.gcount() > 0) {
      text.append(chunk.data(), size_t(in.gcount()));
      if (text.size() > MOST) {
        std::cerr << "makruk pgn: the file is larger than 256 MiB\n";
        return EXIT_BAD_INPUT;
      }
    }
  }
  int refused = 0, number = 0;
  for (std::string_view one : split_pgn_games(text)) {
    ++number;
    Message why;
    auto g = read_pgn(one, fallback, &why);
    if (!g) {
      ++refused;
      const std::string said = why.english();
      std::cerr << "game " << number << ": " << said << "\n";
      if (o.to == "json") {
        json::Writer w;
        w.begin_object();
        w.key("game").number(number);
        w.key("ok").boolean(false);
        w.key("error").string(said);
        w.key("msg").string(message_id(why.id));
        w.end_object();
        std::cout << w.str() << "\n";
      }
      continue;
    }
    // The moves in each notation, from the start.
    Position pos;
    const std::string start = g->fen.empty() ? std::string(Position::start_fen(g->variant)) : g->fen;
    pos.set(start, g->variant, Counting::Automatic, nullptr);
    std::vector<std::string> san, thai, thaiLocal, khmer;
    for (const std::string& m : g->moves) {
      Move move = parse_move(pos, m);
      san.push_back(move_to_san(pos, move));
      thai.push_back(move_to_thai_san(pos, move));
      thaiLocal.push_back(move_in_script(pos, move, Script::Thai));
      khmer.push_back(move_in_script(pos, move, Script::Khmer));
      pos.do_move(move);
    }
    if (o.to == "json") {
      json::Writer w;
      w.begin_object();
      w.key("game").number(number);
      w.key("ok").boolean(true);
      w.key("variant").string(variant_name(g->variant));
      w.key("fen").string(start);
      w.key("tags").begin_object();
      for (const auto& [k, v] : g->tags) w.key(k).string(v);
      w.end_object();
      w.key("result").string(g->result);
      for (const auto& [name, list] : {std::pair<const char*, const std::vector<std::string>*>{"moves", &g->moves},
                                       {"san", &san},
                                       {"thai", &thai},
                                       {"thaiLocal", &thaiLocal},
                                       {"khmer", &khmer}}) {
        w.key(name).begin_array();
        for (const std::string& m : *list) w.string(m);
        w.end_array();
      }
      w.end_object();
      std::cout << w.str() << "\n";
      continue;
    }
    if (o.to != "pgn") {
      const std::vector<std::string>& list = o.to == "san"          ? san
                                             : o.to == "thai"       ? thai
                                             : o.to == "thai-local" ? thaiLocal
                                             : o.to == "khmer"      ? khmer
                                                                    : g->moves;
      std::string line;
      for (const std::string& m : list) line += (line.empty() ? "" : " ") + m;
      std::cout << line << "\n";
      continue;
    }
    // As our PGN: the game as our rules play it; moves past the end they
    // give it (a count run out, bare kings) are left out, and said so.
    std::string error;
    auto game = Game::create(g->variant, Counting::Automatic, g->fen, &error);
    size_t played = 0;
    for (; game && played < g->moves.size() && !game->over(); ++played)
      if (!game->apply(g->moves[played], &error)) break;
    if (!game) {
      ++refused;
      std::cerr << "game " << number << ": " << error << "\n";
      continue;
    }
    if (played < g->moves.size())
      std::cerr << "game " << number << ": our rules end the game after ply " << played << " ("
                << reason_string(game->reason()) << "); the " << g->moves.size() - played
                << " plies after it are left out\n";
    PgnTags tags;
    for (const auto& [k, v] : g->tags)
      if (k != "Variant" && k != "FEN" && k != "SetUp" && k != "Result" && k != "Termination" && k != "Counting")
        tags.emplace_back(k, v);
    std::cout << write_pgn(*game, tags) << "\n";
  }
  return refused ? EXIT_BAD_INPUT : 0;
}

// `makruk backup` and `makruk restore`: the SQLite store of a data folder copied
// out while the server runs, and a copy put back while it does not.
int run_backup(bool restore, const std::string& dataDir, const std::string& file) {
  server::BackupFigures f;
  std::string error;
  const bool ok = restore ? server::restore_sqlite(file, dataDir, &f, &error)
                          : server::backup_sqlite(dataDir, file, &f, &error);
  const char* name = restore ? "restore" : "backup";
  if (!ok) {
    std::cerr << "makruk " << name << ": " << error << "\n";
    return EXIT_BAD_INPUT;
  }
  std::cout << "makruk " << name << ": " << (restore ? "restored " + file + " into " + dataDir : file) << " ("
            << f.bytes << " bytes: " << f.tables << " tables, " << f.games << " games, " << f.actions
            << " actions)\n";
  return 0;
}

int run_adjudicate(const Options& o) {
  Variant v;
  if (!parse_variant(o.variant, v)) {
    print_adjudicate_error("unknown variant '" + o.variant + "' (makruk, ouk, cambodian, ouk-chatrang)", 0);
    return EXIT_BAD_INPUT;
  }
  Counting mode;
  if (o.counting == "auto") mode = Counting::Automatic;
  else if (o.counting == "declare") mode = Counting::Declaration;
  else {
    print_adjudicate_error("unknown counting mode '" + o.counting + "' (auto or declare)", 0);
    return EXIT_BAD_INPUT;
  }
  std::string error;
  auto game = Game::create(v, mode, o.fen, &error);
  if (!game) {
    print_adjudicate_error(error, 0);
    return EXIT_BAD_INPUT;
  }
  for (const std::string& action : o.actions) {
    int ply = game->plies() + 1;
    if (!game->apply(action, &error)) {
      print_adjudicate_error(error + " at ply " + std::to_string(ply), ply);
      return EXIT_BAD_INPUT;
    }
  }
  const Position& pos = game->position();
  json::Writer w;
  w.begin_object();
  w.key("variant").string(variant_name(v));
  w.key("result").string(result_string(game->result()));
  w.key("reason");
  if (game->over()) w.string(reason_string(game->reason()));
  else w.null();
  w.key("fen").string(pos.fen());
  w.key("turn").string(pos.side_to_move() == WHITE ? "w" : "b");
  w.key("check").boolean(pos.in_check());
  w.key("count");
  if (const Count& c = pos.count(); c.running()) {
    w.begin_object();
    w.key("side").string(c.side == WHITE ? "w" : "b");
    w.key("kind").string(count_kind_string(c.kind));
    w.key("n").number(c.n);
    w.key("limit").number(c.limit);
    w.end_object();
  } else {
    w.null();
  }
  w.key("repetitions").number(game->repetitions());
  w.key("drawOffer");
  if (auto offer = game->draw_offer()) w.string(*offer == WHITE ? "w" : "b");
  else w.null();
  w.key("legal").begin_array();
  for (Move m : game->legal_moves()) w.string(move_to_string(m));
  w.end_array();
  w.end_object();
  std::cout << w.str() << std::endl;
  return 0;
}

struct MatchOptions {
  std::vector<std::string> commands, names, options[2], resume;
  std::string variant = "makruk", tc, openings, pgn, sprt;
  double sprt_alpha = 0.05, sprt_beta = 0.05;
  int games = 2, concurrency = 1, depth = 0, max_plies = 800, nodes_vary = 0;
  int64_t movetime = 0;
  uint64_t nodes = 0, nodes2 = 0;
};

int run_match_command(const MatchOptions& mo) {
  engine::MatchConfig cfg;
  if (!parse_variant(mo.variant, cfg.variant)) {
    std::cerr << "makruk match: unknown variant '" << mo.variant << "'\n";
    return EXIT_BAD_INPUT;
  }
  for (int i = 0; i < 2; ++i) {
    cfg.engines[i].command = mo.commands[size_t(i)];
    cfg.engines[i].name = mo.names.size() == 2 ? mo.names[size_t(i)] : "engine" + std::to_string(i + 1);
    for (const std::string& opt : mo.options[i]) {
      size_t eq = opt.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "makruk match: option '" << opt << "' must be NAME=VALUE\n";
        return EXIT_BAD_INPUT;
      }
      cfg.engines[i].options.emplace_back(opt.substr(0, eq), opt.substr(eq + 1));
    }
  }
  if (!mo.tc.empty() && !engine::parse_time_control(mo.tc, cfg.tc)) {
    std::cerr << "makruk match: bad time control '" << mo.tc << "' (expected BASE+INC in seconds, e.g. 10+0.1)\n";
    return EXIT_BAD_INPUT;
  }
  cfg.tc.movetime_ms = mo.movetime;
  cfg.tc.nodes = mo.nodes;
  cfg.tc.depth = mo.depth;
  if (mo.nodes2 && !mo.nodes) {
    std::cerr << "makruk match: --nodes2 gives the second engine its own --nodes; give --nodes too\n";
    return EXIT_BAD_INPUT;
  }
  cfg.engines[1].nodes = mo.nodes2;
  if (!cfg.tc.base_ms && !cfg.tc.movetime_ms && !cfg.tc.nodes && !cfg.tc.depth) {
    std::cerr << "makruk match: give a limit: --tc, --movetime, --nodes or --depth\n";
    return EXIT_BAD_INPUT;
  }
  std::string error;
  if (!mo.openings.empty() && !engine::load_openings(mo.openings, cfg.variant, cfg.openings, &error)) {
    std::cerr << "makruk match: " << error << "\n";
    return EXIT_BAD_INPUT;
  }
  if (!mo.sprt.empty()) {
    const size_t comma = mo.sprt.find(',');
    try {
      size_t used0 = 0, used1 = 0;
      cfg.sprt.elo0 = std::stod(mo.sprt.substr(0, comma), &used0);
      const std::string rest = comma == std::string::npos ? "" : mo.sprt.substr(comma + 1);
      cfg.sprt.elo1 = std::stod(rest, &used1);
      if (used0 != comma || used1 != rest.size() || cfg.sprt.elo1 <= cfg.sprt.elo0) throw std::invalid_argument("");
    } catch (...) {
      std::cerr << "makruk match: --sprt needs ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,5), got '" << mo.sprt << "'\n";
      return EXIT_BAD_INPUT;
    }
    cfg.sprt.enabled = true;
    cfg.sprt.alpha = mo.sprt_alpha;
    cfg.sprt.beta = mo.sprt_beta;
  }
  cfg.games = mo.games;
  cfg.nodes_vary_percent = mo.nodes_vary;
  cfg.concurrency = mo.concurrency;
  cfg.pgn_path = mo.pgn;
  cfg.max_plies = mo.max_plies;
  for (const std::string& log : mo.resume)
    if (!engine::read_match_log(log, cfg, &error)) {
      std::cerr << "makruk match: " << error << "\n";
      return EXIT_BAD_INPUT;
    }
  engine::run_match(cfg, std::cout);
  return 0;
}

struct EgtbCommand {
  std::vector<std::string> materials;
  std::string dir;
  bool save = false;
};

// Builds (or reads from --dir) each material's table and prints its figures;
// with --save writes it to --dir. No material: every three-piece material a
// game can reach (at most two rooks, two khons, two knights; any number of
// mets, promoted pawns being mets).
int run_egtb(EgtbCommand c) {
  if (c.save && c.dir.empty()) {
    std::cerr << "makruk egtb: --save needs --dir\n";
    return EXIT_BAD_INPUT;
  }
  if (!c.dir.empty() && !std::filesystem::is_directory(c.dir)) {
    std::cerr << "makruk egtb: --dir " << c.dir << " is not a folder\n";
    return EXIT_BAD_INPUT;
  }
  if (c.materials.empty()) {
    const std::string letters = "RSNM";
    for (int a = 0; a < 4; ++a)
      for (int b = a; b < 4; ++b)
        for (int d = b; d < 4; ++d)
          if (a != d || a == 3) c.materials.push_back({letters[a], letters[b], letters[d]});
  }
  engine::egtb_set_path(c.dir);
  for (const std::string& m : c.materials) {
    engine::EgtbStats s;
    if (!engine::egtb_stats(m, s)) {
      std::cerr << "makruk egtb: not a material (1 to 3 of R, S, N, M): " << m << "\n";
      return EXIT_BAD_INPUT;
    }
    std::printf("%-6s %-5s %8.1f s %11zu bytes (%11zu while built)  longest win %3d plies  %5.1f%% won (%zu of %zu)\n",
                s.name.c_str(), s.from_file ? "read" : "built", s.seconds, s.bytes, s.peak_bytes, s.max_plies,
                s.legal ? 100.0 * double(s.wins) / double(s.legal) : 0.0, s.wins, s.legal);
    std::fflush(stdout);
    std::string error;
    if (c.save && !engine::egtb_save(m, c.dir, &error)) {
      std::cerr << "makruk egtb: " << error << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"makruk: Makruk and Ouk Chatrang rules, engine and server"};
  app.require_subcommand(1);
  Options o;

  auto* perftCmd = app.add_subcommand("perft", "count the leaf nodes of the legal move tree");
  perftCmd->add_option("--variant", o.variant, "makruk, ouk (cambodian, ouk-chatrang)");
  perftCmd->add_option("--fen", o.fen, "start from this position");
  perftCmd->add_flag("--divide", o.divide, "print the count under each root move");
  perftCmd->add_option("depth", o.depth, "depth in plies")->required()->check(CLI::Range(0, 20));

  auto* adjCmd = app.add_subcommand("adjudicate", "replay actions and print the game state as JSON");
  adjCmd->add_option("--variant", o.variant, "makruk, ouk (cambodian, ouk-chatrang)");
  adjCmd->add_option("--fen", o.fen, "start from this position");
  adjCmd->add_option("--counting", o.counting, "how counts start: auto or declare");
  adjCmd->add_option("actions", o.actions, "moves (e3e4, d5d6m) and count:w, stop:b, claim:w, resign:b, expire");

  PgnOptions po;
  auto* pgnCmd = app.add_subcommand("pgn", "check a file of game records and print them as JSON, PGN or moves");
  pgnCmd->add_option("file", po.file, "the file (default: standard input, also '-')");
  pgnCmd->add_option("--variant", po.variant, "for records without a Variant tag (default makruk)");
  pgnCmd->add_option("--to", po.to,
                     "json (default: a line per game), pgn, san, thai (Fairy-Stockfish's), thai-local or khmer (as the "
                     "game screen writes them), coords");

  auto* uciCmd = app.add_subcommand("uci", "speak UCI on standard input and output");
  auto* messagesCmd = app.add_subcommand("messages", "list every message a player can be shown, as JSON");
  int benchDepth = 11;
  auto* benchCmd = app.add_subcommand("bench", "search a fixed set of positions; print nodes and speed");
  benchCmd->add_option("depth", benchDepth, "search depth (default 11)")->check(CLI::Range(1, 60));
  std::string benchEvalFile;
  benchCmd->add_option("--eval-file", benchEvalFile,
                       "the network (a file from makruk nnue-train; default: the built-in one; none: hand-written)");

  engine::OpeningsOptions oo;
  std::string ooVariant = "makruk";
  int ooMinScore = 0;
  auto* openCmd = app.add_subcommand("openings", "make balanced (or unbalanced) opening lines with the engine");
  openCmd->add_option("--variant", ooVariant, "makruk, ouk (cambodian, ouk-chatrang)");
  openCmd->add_option("--count", oo.count, "lines to make (default 50)")->check(CLI::Range(1, 100000));
  openCmd->add_option("--plies", oo.plies, "random plies from the start (default 8)")->check(CLI::Range(1, 40));
  openCmd->add_option("--depth", oo.depth, "depth of the balance check (default 10)")->check(CLI::Range(1, 30));
  auto* minScore = openCmd->add_option("--min-score", ooMinScore,
                      "unbalanced: keep lines where the side to move is ahead by at least this many "
                      "centipawns (and at most --max-score)")
      ->check(CLI::Range(-1000, 1000));
  openCmd->add_option("--max-score", oo.max_score,
                      "keep lines within this many centipawns of equality (default 40)")
      ->check(CLI::Range(0, 1000));
  openCmd->add_option("--seed", oo.seed, "random seed (default 1)");

  server::ServerOptions so;
  std::string backupData = "data", backupFile;
  auto* backupCmd = app.add_subcommand(
      "backup", "copy the SQLite database of a data folder into a new file, also while the server runs");
  backupCmd->add_option("--data", backupData, "the server's data folder (default ./data)");
  backupCmd->add_option("file", backupFile, "the new file (never overwritten)")->required();
  auto* restoreCmd = app.add_subcommand(
      "restore", "put a backup in place of a data folder's SQLite database (the server stopped; the old one kept)");
  restoreCmd->add_option("--data", backupData, "the server's data folder (default ./data)");
  restoreCmd->add_option("file", backupFile, "the backup")->required();
  auto* serveCmd = app.add_subcommand("serve", "serve the web client, the API and live games");
  serveCmd->add_option("--port", so.port, "TCP port (default 8080)");
  serveCmd->add_option("--address", so.address, "address to listen on (default 0.0.0.0)");
  serveCmd->add_option("--data", so.data_dir, "data folder for the database (default ./data)");
  serveCmd->add_option("--egtb", so.egtb_dir,
                       "folder of three-piece endgame tables from makruk egtb --save (default: DATA/egtb)");
  serveCmd->add_option("--store", so.store,
                       "a postgresql:// URL: keep the tables in PostgreSQL instead of SQLite in the data folder");
  serveCmd->add_option("--bus", so.bus,
                       "a redis:// URL: instances sharing one PostgreSQL store tell each other of their changes");
  serveCmd->add_flag("--sqlite-full-sync", so.sqlite_full_sync,
                     "SQLite: every commit reaches the disk before it is acknowledged, so it survives a power loss "
                     "too (slower; see docs/deploy.md)");
  serveCmd->add_option("--store-writers", so.store_writers,
                       "connections writing the tables' actions, each on its own thread (default: 1 for SQLite, "
                       "which has one writer at a time, 4 for PostgreSQL)")
      ->check(CLI::Range(1, 64));
  serveCmd->add_option("--hub-threads", so.hub_threads,
                       "threads serving the tables, each holding the tables whose codes fall to it, so that a table "
                       "never waits for another's work there (default: a quarter of the cores, 1 to 8)")
      ->check(CLI::Range(1, 64));
  serveCmd->add_option("--web", so.web_dir, "the built web client (default web/dist)");
  serveCmd->add_option("--threads", so.threads, "network threads (default 2)")->check(CLI::Range(1, 64));
  serveCmd->add_option("--push-subject", so.push_subject,
                       "VAPID contact given to push services (default mailto:admin@localhost)");
  serveCmd->add_flag("--push-allow-http", so.push_allow_http,
                     "accept plain-http push endpoints and deliver to loopback and private addresses (for tests)");
  serveCmd->add_flag("--test-clock", so.test_clock, "let POST /api/test/clock move the server's clock (for tests)");
  serveCmd->add_option("--cpu-threads", so.cpu_threads,
                       "threads searching CPU moves (default: the cores left after the network and hub threads, "
                       "at least 1)")
      ->check(CLI::Range(1, 64));
  // Budgets against hostile clients; 0 is unlimited for each.
  const auto nonNegative = CLI::Range(0, 1 << 30);
  serveCmd->add_option("--max-connections", so.max_connections, "open connections in all (default 20000)")
      ->check(nonNegative);
  serveCmd->add_option("--max-connections-per-ip", so.max_connections_per_ip,
                       "open connections from one address (default 100)")
      ->check(nonNegative);
  serveCmd->add_option("--hello-timeout-ms", so.hello_timeout_ms,
                       "close a WebSocket that has not joined a table by then (default 5000)")
      ->check(nonNegative);
  serveCmd->add_option("--ws-idle-ms", so.ws_idle_ms,
                       "close a WebSocket from which nothing came for this long, a ping included (pinged at half "
                       "of it; default 60000)")
      ->check(CLI::Range(1000, 3600000));
  serveCmd->add_option("--limit-create", so.limits.create_per_minute,
                       "tables one address may create a minute (default 10)")
      ->check(nonNegative);
  serveCmd->add_option("--limit-join", so.limits.join_per_minute, "join requests from one address a minute (default 30)")
      ->check(nonNegative);
  serveCmd->add_option("--limit-cpu", so.limits.cpu_per_minute,
                       "tables against the CPU one address may create a minute (default 3)")
      ->check(nonNegative);
  serveCmd->add_option("--limit-wrong-codes", so.limits.wrong_codes_per_minute,
                       "wrong table codes from one address a minute (default 10)")
      ->check(nonNegative);
  serveCmd->add_option("--limit-pictures", so.limits.pictures_per_minute,
                       "game pictures not yet drawn that one address may have drawn a minute (default 30)")
      ->check(nonNegative);
  serveCmd->add_flag("--pair-same-address", so.limits.pair_same_address,
                     "let \"find an opponent\" pair two seekers from one address (off: an address is never paired "
                     "with itself; people at one address play each other with a table code)");
  serveCmd->add_option("--proof-bits", so.limits.proof_bits,
                       "past the wrong-code limit, a code lookup goes through with a proof of work of this many "
                       "bits (default 18; 0: never)")
      ->check(CLI::Range(0, 26));
  serveCmd->add_option("--cpu-max-ms", so.limits.cpu_max_ms, "time cap on one CPU search (default 1500)")
      ->check(CLI::Range(1, 60000));
  std::string adminSecretFile;
  serveCmd->add_option("--admin-secret-file", adminSecretFile,
                       "a file whose first line is the secret that unlocks the feedback board's admin page "
                       "(or set MAKRUK_ADMIN_SECRET)");
  int drainSeconds = so.drain_ms / 1000;
  serveCmd->add_option("--drain-seconds", drainSeconds,
                       "on SIGTERM, how long open connections get to finish before the server stops (default 5)")
      ->check(CLI::Range(0, 600));
  serveCmd->add_flag("!--no-ws-deflate", so.ws_deflate, "do not offer permessage-deflate to WebSocket clients");
  serveCmd->add_flag("!--no-cpu-pause", so.limits.cpu_pause,
                     "CPU levels 1-5 answer as soon as they have searched, without a short human-like pause");
  serveCmd->add_option("--cpu-queue", so.limits.cpu_queue,
                       "CPU searches waiting; past it no new CPU table is made (default 256)");
  int64_t liveIdleMinutes = so.limits.live_idle_ms / 60000;
  serveCmd->add_option("--live-idle-minutes", liveIdleMinutes,
                       "a live table nobody is at ends after this long without a move (default 1440)")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 30));
  serveCmd->add_option("--public-url", so.public_url,
                       "the address links and QR codes point to, e.g. https://makruk.example "
                       "(default http://localhost:PORT)");
  serveCmd->add_option("--trusted-proxy", so.trusted_proxies,
                       "a reverse proxy's address whose X-Forwarded-For names the client (repeatable)");
  serveCmd->add_option("--allowed-origin", so.allowed_origins,
                       "another origin whose pages may use the API and WebSocket (repeatable)");

  MatchOptions mo;
  auto* matchCmd = app.add_subcommand("match", "play two UCI engines against each other");
  matchCmd->add_option("--engine", mo.commands, "an engine's command line (give two)")
      ->required()->expected(2);
  matchCmd->add_option("--name", mo.names, "the engines' names (two)")->expected(2);
  matchCmd->add_option("--option1", mo.options[0], "NAME=VALUE set on the first engine");
  matchCmd->add_option("--option2", mo.options[1], "NAME=VALUE set on the second engine");
  matchCmd->add_option("--variant", mo.variant, "makruk, ouk (cambodian, ouk-chatrang)");
  matchCmd->add_option("--games", mo.games, "number of games (default 2)")->check(CLI::Range(1, 1000000));
  matchCmd->add_option("--tc", mo.tc, "clock: BASE+INC in seconds, e.g. 10+0.1");
  matchCmd->add_option("--movetime", mo.movetime, "ms per move")->check(CLI::Range(1, 86400000));
  matchCmd->add_option("--nodes", mo.nodes, "nodes per move")->check(CLI::Range(1, 2000000000));
  matchCmd->add_option("--nodes2", mo.nodes2,
                       "the second engine's nodes per move where it differs from --nodes (equal time for "
                       "engines of different speeds)")
      ->check(CLI::Range(1, 2000000000));
  matchCmd->add_option("--depth", mo.depth, "depth per move")->check(CLI::Range(1, 100));
  matchCmd->add_option("--nodes-vary", mo.nodes_vary,
                       "with --nodes: each opening pair's limit varied within this many percent (default 0)")
      ->check(CLI::Range(0, 90));
  matchCmd->add_option("--openings", mo.openings, "openings file (startpos|FEN [moves …] per line)");
  matchCmd->add_option("--concurrency", mo.concurrency, "games at once (default 1)")->check(CLI::Range(1, 64));
  matchCmd->add_option("--pgn", mo.pgn, "append the games to this PGN file");
  matchCmd->add_option("--sprt", mo.sprt,
                       "ELO0,ELO1: a sequential test on game pairs (pentanomial); stops when it decides");
  matchCmd->add_option("--sprt-alpha", mo.sprt_alpha, "the test's false positive rate (default 0.05)")
      ->check(CLI::Range(0.001, 0.5));
  matchCmd->add_option("--sprt-beta", mo.sprt_beta, "the test's false negative rate (default 0.05)")
      ->check(CLI::Range(0.001, 0.5));
  matchCmd->add_option("--max-plies", mo.max_plies, "adjudicate a draw after this many plies (default 800)")
      ->check(CLI::Range(10, 100000));
  matchCmd->add_option("--resume", mo.resume,
                       "an earlier run's output (repeatable): its games count and are not played again");

  engine::SelfplayCommand sp;
  auto* selfplayCmd = app.add_subcommand("selfplay", "play fast engine games; write quiet positions and results");
  selfplayCmd->add_option("--variant", sp.variant, "makruk, ouk (cambodian, ouk-chatrang)");
  selfplayCmd->add_option("--openings", sp.openings, "openings file (startpos|FEN [moves …] per line)");
  selfplayCmd->add_option("--games", sp.options.games, "games to play (default 100)")->check(CLI::Range(1, 10000000));
  selfplayCmd->add_option("--nodes", sp.options.nodes, "nodes per move, varied ±50% (default 3000)")
      ->check(CLI::Range(100, 100000000));
  selfplayCmd->add_option("--random-plies", sp.options.random_plies, "random moves after the opening (default 2)")
      ->check(CLI::Range(0, 40));
  selfplayCmd->add_option("--threads", sp.options.threads, "games at once (default 1)")->check(CLI::Range(1, 256));
  selfplayCmd->add_option("--seed", sp.options.seed, "random seed (default 1)");
  selfplayCmd->add_option("--params", sp.params, "play with this weights file (default: the compiled-in table)");
  selfplayCmd->add_option("--out", sp.out, "append the positions to this file (default: standard output)");
  selfplayCmd->add_option("--eval-file", sp.eval_file,
                          "the network (a file from makruk nnue-train; default: the built-in one; none: hand-written)");

  engine::LabelCommand lc;
  auto* labelCmd = app.add_subcommand("label", "score the positions of games (PGN) or data lines with the engine's search");
  labelCmd->add_option("--variant", lc.variant, "makruk, ouk (cambodian, ouk-chatrang)");
  labelCmd->add_option("--pgn", lc.pgn, "games to take positions from (a PGN collection; repeatable)");
  labelCmd->add_option("--positions", lc.positions, "data lines to score again (FEN;RESULT[;SCORE]; repeatable)");
  labelCmd->add_option("--nodes", lc.options.nodes, "nodes per position (default 10000)")
      ->check(CLI::Range(100, 100000000));
  labelCmd->add_option("--skip-plies", lc.options.skip_plies, "a game's first plies left out (default 10)")
      ->check(CLI::Range(0, 1000));
  labelCmd->add_option("--threads", lc.options.threads, "searches at once, each a game or a block of lines (default 1)")
      ->check(CLI::Range(1, 256));
  labelCmd->add_option("--out", lc.out, "append the positions to this file (default: standard output)");
  labelCmd->add_option("--eval-file", lc.eval_file,
                       "the network (a file from makruk nnue-train; default: the built-in one; none: hand-written)");

  engine::SpsaCommand spsa;
  auto* spsaCmd = app.add_subcommand("spsa", "tune the search's numbers (reductions, margins, history) in self-play");
  spsaCmd->add_option("--variant", spsa.variant, "makruk, ouk (cambodian, ouk-chatrang)");
  spsaCmd->add_option("--openings", spsa.openings, "openings file, one a game pair (startpos|FEN [moves …] per line)");
  spsaCmd->add_option("--iterations", spsa.options.iterations, "game pairs (default 1000)")
      ->check(CLI::Range(1, 10000000));
  spsaCmd->add_option("--tc", spsa.tc, "a clock per game, BASE+INC in seconds (like 2+0.02)");
  spsaCmd->add_option("--nodes", spsa.nodes, "or nodes per move")->check(CLI::Range(100, 100000000));
  spsaCmd->add_option("--tune", spsa.options.tune, "tune this number (repeatable; default: all of them)");
  spsaCmd->add_option("--start", spsa.start, "start from these numbers (\"name=value …\"; default: the built-in ones)");
  spsaCmd->add_option("--r-end", spsa.options.r_end, "the last iteration's learning rate (default 0.002)")
      ->check(CLI::Range(1e-6, 10.0));
  spsaCmd->add_option("--random-plies", spsa.options.random_plies, "random moves after the opening (default 0)")
      ->check(CLI::Range(0, 40));
  spsaCmd->add_option("--threads", spsa.options.threads, "pairs at once (default 1)")->check(CLI::Range(1, 256));
  spsaCmd->add_option("--seed", spsa.options.seed, "random seed (default 1)");
  spsaCmd->add_option("--out", spsa.out, "write the numbers here after each report (the SearchParams option's text)");
  spsaCmd->add_option("--eval-file", spsa.eval_file,
                      "the network (a file from makruk nnue-train; default: the built-in one; none: hand-written)");

  engine::TuneCommand tc;
  auto* tuneCmd = app.add_subcommand("tune", "fit the evaluation's weights to self-play results (Texel)");
  tuneCmd->add_option("--variant", tc.variant, "makruk, ouk (cambodian, ouk-chatrang)");
  tuneCmd->add_option("--data", tc.data, "FEN;RESULT file (repeatable)");
  tuneCmd->add_option("--from", tc.from, "start from this weights file (default: the compiled-in table)");
  tuneCmd->add_option("--out", tc.out, "write the tuned table here as C++ (src/engine/eval_params.cpp)");
  tuneCmd->add_option("--iterations", tc.iterations, "Adam iterations (default 500)")->check(CLI::Range(0, 1000000));
  tuneCmd->add_option("--rate", tc.rate, "Adam step in centipawns (default 1)");
  tuneCmd->add_option("--max-positions", tc.max_positions, "read at most this many positions");
  tuneCmd->add_option("--k", tc.k, "sigmoid scale (default: fitted)");
  tuneCmd->add_option("--lambda", tc.lambda, "target: lambda * result + (1 - lambda) * sigmoid(search score) (default 1)")
      ->check(CLI::Range(0.0, 1.0));
  tuneCmd->add_option("--l2", tc.l2, "L2 pull towards the starting weights (default 0)");
  tuneCmd->add_flag("--global-step", tc.global_step, "one step scale for all weights instead of Adam's per weight");
  tuneCmd->add_option("--freeze", tc.freeze, "leave this EvalParams field as it is (repeatable), e.g. psq");
  tuneCmd->add_flag("!--no-hold-out", tc.hold_out, "tune on every position (default: a tenth held out)");
  tuneCmd->add_option("--report", tc.report, "print the error every N iterations (default 10)")
      ->check(CLI::Range(1, 1000000));

  EgtbCommand ec;
  auto* egtbCmd = app.add_subcommand("egtb", "build endgame tables (a bare king against 1 to 3 pieces); print their figures");
  egtbCmd->add_option("materials", ec.materials, "the hunter's pieces, e.g. NMM (default: every three-piece material)");
  egtbCmd->add_option("--dir", ec.dir, "read tables from this folder, and write them there with --save");
  egtbCmd->add_flag("--save", ec.save, "write each table to --dir (KNMMK.mktb …)");

  engine::nnue::TrainCommand nt;
  auto* nnueCmd = app.add_subcommand("nnue-train", "train the learned evaluation on self-play positions");
  nnueCmd->add_option("--variant", nt.variant, "the data's variant: makruk, ouk (default makruk)");
  nnueCmd->add_option("--data", nt.data, "FEN;RESULT;SCORE file, or VARIANT:FILE (repeatable)");
  nnueCmd->add_option("--out", nt.out, "write the network here");
  nnueCmd->add_option("--epochs", nt.options.epochs, "passes over the data (default 10)")->check(CLI::Range(0, 10000));
  nnueCmd->add_option("--batch", nt.options.batch, "positions per step (default 1024)")->check(CLI::Range(1, 1 << 20));
  nnueCmd->add_option("--rate", nt.options.rate, "Adam's step (default 0.001)")->check(CLI::Range(1e-7, 1.0));
  nnueCmd->add_option("--decay", nt.options.decay, "the step's factor after each epoch (default 0.85)")
      ->check(CLI::Range(0.01, 1.0));
  nnueCmd->add_option("--k", nt.options.k, "sigmoid scale (default 0.367, the tuned evaluation's)")
      ->check(CLI::Range(0.01, 10.0));
  nnueCmd->add_option("--lambda", nt.options.lambda, "target: lambda * result + (1 - lambda) * sigmoid(score) (0.5)")
      ->check(CLI::Range(0.0, 1.0));
  nnueCmd->add_option("--seed", nt.options.seed, "random seed of the first weights and the order (default 1)");
  nnueCmd->add_option("--max-positions", nt.max_positions, "read at most this many positions");
  nnueCmd->add_flag("!--no-hold-out", nt.options.hold_out, "train on every position (default: a tenth held out)");
  nnueCmd->add_flag("--mirror", nt.mirror, "also train on each position with its files mirrored (Makruk; Ouk Chatrang once no first-move right is left)");
  nnueCmd->add_flag("--residual", nt.options.residual, "learn a correction to the hand-written evaluation");
  nnueCmd->add_option("--l2", nt.options.l2, "weight decay (default 0)")->check(CLI::Range(0.0, 1.0));
  nnueCmd->add_option("--checkpoint", nt.checkpoint, "write the training's state here after each epoch");
  nnueCmd->add_option("--resume", nt.resume,
                      "go on from a checkpoint (the same data and options; --epochs may be larger)");
  nnueCmd->add_option("--init", nt.init,
                      "start from this network's weights instead of random ones (fine-tuning; the same width, "
                      "residual or not as --residual says)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (argc > 1 && std::string(argv[1]) == "adjudicate") {
      print_adjudicate_error(e.what(), 0);
    } else {
      std::cerr << "makruk: " << e.what() << "\n";
      if (argc > 1) std::cerr << "Run 'makruk --help' for usage.\n";
    }
    return EXIT_BAD_INPUT;
  }
  if (*perftCmd) return run_perft(o);
  if (*adjCmd) return run_adjudicate(o);
  if (*pgnCmd) return run_pgn(po);
  if (*uciCmd) return engine::uci_loop(std::cin, std::cout);
  if (*messagesCmd) {
    std::cout << messages_json();
    return std::cout ? 0 : 1;
  }
  if (*benchCmd) return engine::run_bench(benchDepth, std::cout, benchEvalFile);
  if (*matchCmd) return run_match_command(mo);
  if (*selfplayCmd) return engine::run_selfplay_command(sp, std::cerr);
  if (*labelCmd) return engine::run_label_command(lc, std::cerr);
  if (*tuneCmd) return engine::run_tune_command(tc, std::cerr);
  if (*spsaCmd) return engine::run_spsa_command(spsa, std::cerr);
  if (*nnueCmd) return engine::nnue::run_train_command(nt, std::cerr);
  if (*egtbCmd) return run_egtb(ec);
  if (*serveCmd) {
    so.limits.live_idle_ms = liveIdleMinutes * 60000;
    so.drain_ms = drainSeconds * 1000;
    if (!adminSecretFile.empty()) {
      std::ifstream in(adminSecretFile);
      if (!in || !std::getline(in, so.admin_secret)) {
        std::cerr << "makruk serve: cannot read the admin secret from " << adminSecretFile << "\n";
        return EXIT_BAD_INPUT;
      }
    } else if (const char* env = std::getenv("MAKRUK_ADMIN_SECRET")) {
      so.admin_secret = env;
    }
    while (!so.admin_secret.empty() && std::isspace(static_cast<unsigned char>(so.admin_secret.back())))
      so.admin_secret.pop_back();
    if (!so.admin_secret.empty() && so.admin_secret.size() < 12) {
      std::cerr << "makruk serve: the admin secret must have at least 12 characters\n";
      return EXIT_BAD_INPUT;
    }
    return server::run_server(so);
  }
  if (*backupCmd || *restoreCmd) return run_backup(restoreCmd->parsed(), backupData, backupFile);
  if (*openCmd) {
    if (!parse_variant(ooVariant, oo.variant)) {
      std::cerr << "makruk openings: unknown variant '" << ooVariant << "'\n";
      return EXIT_BAD_INPUT;
    }
    if (minScore->count()) oo.min_score = ooMinScore;
    return engine::make_openings(oo, std::cout) == oo.count ? 0 : 1;
  }
  return EXIT_BAD_INPUT;
}
