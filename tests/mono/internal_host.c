/*
 * A program that embeds Mono and has the engine linked in statically, as a Unity player on
 * iOS or WebGL has (IL2CPP there; Mono here): the C# wrapper compiled for those platforms
 * declares every native function with DllImport("__Internal"), which Mono resolves in the
 * main program (dlopen(NULL)), so the engine's elo_ functions must be exported from this
 * executable (-Wl,--export-dynamic) and no libranking_elo.so is involved.
 *
 * `cargo xtask test` builds it (xtask/src/mono.rs) and runs nunit-console with it, once
 * JIT-compiling and once in full-AOT mode (no code generation at run time, like IL2CPP's
 * ahead-of-time rule), with RANKING_ELO_FULL_AOT=1.
 *
 * usage: internal_host <program.exe> [arguments...]
 */
#include <mono/jit/jit.h>
#include <mono/metadata/assembly.h>
#include <mono/metadata/environment.h>
#include <mono/metadata/mono-config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranking_elo.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <program.exe> [arguments...]\n", argv[0]);
        return 2;
    }
    /* Referencing the engine here also keeps the linker from dropping it. */
    fprintf(stderr, "internal_host: ranking-elo %s (build %s) linked into the program\n", elo_version(), elo_build_id());
    const char *full_aot = getenv("RANKING_ELO_FULL_AOT");
    if (full_aot != NULL && strcmp(full_aot, "1") == 0) {
        mono_jit_set_aot_mode(MONO_AOT_MODE_FULL);
        fprintf(stderr, "internal_host: full-AOT mode (no JIT)\n");
    }
    mono_config_parse(NULL);
    MonoDomain *domain = mono_jit_init_version("internal_host", "v4.0.30319");
    MonoAssembly *assembly = mono_domain_assembly_open(domain, argv[1]);
    if (assembly == NULL) {
        fprintf(stderr, "internal_host: cannot open %s\n", argv[1]);
        return 2;
    }
    int status = mono_jit_exec(domain, assembly, argc - 1, argv + 1);
    int exit_code = mono_environment_exitcode_get();
    mono_jit_cleanup(domain);
    return status != 0 ? status : exit_code;
}
