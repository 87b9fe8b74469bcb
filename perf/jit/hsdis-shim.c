/*
 * hsdis-shim.c: the disassembler JDK 25's -XX:+PrintAssembly loads (hsdis-amd64.so), written on Debian's capstone
 * library. Debian's libhsdis0-fcml, used before, stops at the first instruction it cannot decode ("Disassembling
 * failed with error code: 15") and leaves the rest of a method unprinted, so perf's samples beyond it went
 * unannotated; capstone decodes the whole of C2's code (AVX-512 and BMI encodings included). A byte it cannot
 * decode is printed as such and decoding goes on after it.
 *
 *   apt-get install libcapstone-dev
 *   mkdir -p /tmp/hsdis && gcc -shared -fPIC -O2 -o /tmp/hsdis/hsdis-amd64.so perf/jit/hsdis-shim.c -lcapstone
 *   LD_LIBRARY_PATH=/tmp/hsdis JVS_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions \
 *       -XX:CompileCommand=print,io.jvs.core.pipeline.Pipeline::followEstablished" tools/jvs bench pipeline ...
 *
 * perf/jit/annotate.py joins the printed code with perf's samples.
 *
 * The JDK calls decode_instructions_virtual with the code's own address as both the virtual address and the buffer.
 * For each instruction it is told where the instruction starts and ends (the "insn" and "/insn" events), so that it
 * can print its own comments (the bytecode and source line an instruction belongs to) beside it.
 */
#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

typedef void *(*event_callback)(void *, const char *, void *);
typedef int (*printf_callback)(void *, const char *, ...);

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer, uintptr_t length,
    event_callback event, void *event_stream, printf_callback print, void *print_stream, const char *options,
    int newline)
{
    csh handle;
    (void)end_va;
    (void)options;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
    {
        return 0;
    }
    /* AT&T syntax, as the binutils-based hsdis prints by default. */
    cs_option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    cs_insn *instruction = cs_malloc(handle);
    const uint8_t *code = buffer;
    size_t left = length;
    uint64_t address = start_va;
    while (left > 0)
    {
        event(event_stream, "insn", (void *)(uintptr_t)address);
        if (cs_disasm_iter(handle, &code, &left, &address, instruction))
        {
            print(print_stream, "%s\t%s", instruction->mnemonic, instruction->op_str);
        }
        else
        {
            print(print_stream, ".byte\t0x%02x", *code);
            code++;
            left--;
            address++;
        }
        event(event_stream, "/insn", (void *)(uintptr_t)address);
        if (newline)
        {
            print(print_stream, "\n");
        }
    }
    cs_free(instruction, 1);
    cs_close(&handle);
    return (void *)(uintptr_t)address;
}
