// makruk-uci: the engine alone, speaking UCI on standard input and output (the
// same as `makruk uci`), built from the rules core and the engine only, so that
// GUIs, match runners and tests of the search need nothing of the server.
#include <iostream>

#include "engine/uci.h"

int main() { return makruk::engine::uci_loop(std::cin, std::cout); }
