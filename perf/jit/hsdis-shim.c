/*
 * hsdis-shim.c: lets JDK 25's -XX:+PrintAssembly disassemble with Debian's libhsdis0-fcml, which exports only
 * the older decode_instructions entry point, by providing the decode_instructions_virtual one the JDK looks up.
 * For JIT code the buffer is the code itself, so the virtual addresses are the buffer's.
 *
 *   apt-get install libhsdis0-fcml
 *   gcc -shared -fPIC -O2 -o /tmp/hsdis/hsdis-amd64.so perf/jit/hsdis-shim.c -ldl
 *   LD_LIBRARY_PATH=/tmp/hsdis JVS_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions \
 *       -XX:CompileCommand=print,io.jvs.core.pipeline.Pipeline::followEstablished" tools/jvs bench pipeline ...
 *
 * perf/jit/annotate.py joins the printed code with perf's samples.
 */
#include <dlfcn.h>
#include <stdint.h>

typedef void *(*event_callback)(void *, const char *, void *);
typedef int (*printf_callback)(void *, const char *, ...);
typedef void *(*decode_instructions_t)(void *, void *, event_callback, void *, printf_callback, void *, const char *);

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer, uintptr_t length,
    event_callback event, void *event_stream, printf_callback print, void *print_stream, const char *options,
    int newline)
{
    static decode_instructions_t decode;
    (void)start_va;
    (void)end_va;
    (void)newline;
    if (decode == 0)
    {
        void *library = dlopen("libhsdis.so.0", RTLD_NOW);
        if (library == 0)
        {
            return 0;
        }
        decode = (decode_instructions_t)dlsym(library, "decode_instructions");
        if (decode == 0)
        {
            return 0;
        }
    }
    return decode(buffer, buffer + length, event, event_stream, print, print_stream, options);
}
