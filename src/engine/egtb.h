// Endgame tables: distance to mate for a bare king against king + one, two
// or three pieces (rook, khon, knight, met; a promoted pawn is a met), no
// pawns on the board. Built in memory by retrograde analysis, each table on
// first use; the three-piece ones (minutes and up to 540 MB each) are read
// from files that `makruk egtb` writes, or built when asked for.
//
// A table knows nothing of the count: it gives the plies to mate with best
// play (the winner mating as fast as it can, the loser delaying it). The
// search compares that with the count's remaining moves (docs/rules.md §5).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/position.h"

namespace makruk::engine {

enum class Wdl : int { Loss = -1, Draw = 0, Win = 1 };

// A table's answer from the side to move's point of view. Win: it mates in
// `plies` plies (odd). Loss: it is mated after `plies` plies (even; 0 means it
// is checkmated now). Draw: no forced mate (plies 0).
struct DtmProbe {
  Wdl wdl = Wdl::Draw;
  int plies = 0;
};

// Whether the position's material is covered: no pawns, no Ouk first-move
// rights, one side a bare king, the other king + 1 to 3 of rook, khon,
// knight, met or promoted pawn.
bool egtb_covers(const Position& pos);

// Probes the table for the position's material, generating it first if needed
// (thread-safe). False when the material is not covered. With wait = false a
// two-piece table not built yet (about a second's work) is started on a thread
// of its own and the call returns false at once; the one-piece tables take
// milliseconds and are always built on the spot. A three-piece table is
// probed when egtb_set_path found its file, built on a thread of its own only
// after egtb_set_build_in_search(true), and otherwise not probed. With
// wait = true every table is read or built before the call returns.
bool probe_dtm(const Position& pos, DtmProbe& out, bool wait = true);

// Convenience form: plies_to_mate > 0 the side to move mates in that many
// plies; < 0 it is mated after -plies_to_mate plies; 0 no forced mate, or
// the side to move is checkmated already (check with probe_dtm).
bool probe_dtm(const Position& pos, int& plies_to_mate);

// Figures of one table, generating it if needed. `material` names the hunter's
// pieces by FEN letters, e.g. "R", "SS", "SM" (any order, upper or lower case).
struct EgtbStats {
  std::string name;         // "KRK", "KSMK", "KNMMK", …
  double seconds = 0;       // generation (or reading) time, this table only
  size_t bytes = 0;         // memory the finished table holds (a file's: mapped)
  size_t peak_bytes = 0;    // memory while generating it (0: read from a file)
  int max_plies = 0;        // longest win, hunter to move (plies)
  size_t wins = 0;          // positions won for the hunter, hunter to move
  size_t legal = 0;         // legal positions, hunter to move
  bool from_file = false;   // read from the table directory, not built
};
bool egtb_stats(const std::string& material, EgtbStats& out);

// Every table generated so far.
std::vector<EgtbStats> egtb_generated();

// The directory three-piece tables are read from (empty: none). Every table
// file there is mapped into memory at once (the system reads the pages a
// probe touches); a table already read or built stays as it is. Returns how
// many three-piece tables are now read from files.
int egtb_set_path(const std::string& dir);

// How many three-piece tables dir holds (files of the right size).
int egtb_files_present(const std::string& dir);

// Whether a search that meets a three-piece ending with no file may build its
// table in the background (default false).
void egtb_set_build_in_search(bool allowed);

// Whether dir holds the material's table, entry for entry as built here (or
// as read, when this process read its table from dir).
bool egtb_check_file(const std::string& material, const std::string& dir, std::string* error);

// Writes the material's table (building it if needed) to dir as KxxxK.mktb.
bool egtb_save(const std::string& material, const std::string& dir, std::string* error);

}  // namespace makruk::engine
