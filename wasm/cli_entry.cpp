// The CLI's main() as a function the API module calls (wasm/api.cpp): tools/meshport/main.cpp
// itself, compiled a second time under another name. Only the WebAssembly build compiles this.
#define main meshport_cli_main
#include "../tools/meshport/main.cpp"
