package io.jvs.forwarder.daemon.it;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfAttr;
import io.jvs.nativebindings.bpf.BpfAttr.TestRun;
import io.jvs.nativebindings.bpf.BpfProgram;

/**
 * Runs an XDP program once in the kernel on a frame ({@code BPF_PROG_TEST_RUN}) and returns the frame as
 * the program left it, which {@link BpfProgram#testRun} does not: a program that moves the packet's start
 * ({@code bpf_xdp_adjust_head}) is checked by its output bytes.
 */
public final class XdpTestRun
{
    /** Room for the output: the input can only grow by the headroom the kernel gives a test run (256). */
    private static final int OUTPUT_SLACK = 512;

    private XdpTestRun()
    {
    }

    /**
     * What the program did.
     *
     * @param action the XDP action it returned.
     * @param frame  the packet after it ran, from the (possibly moved) start to the end.
     */
    public record Result(int action, byte[] frame)
    {
    }

    /**
     * @param frame at least 14 bytes.
     */
    public static Result run(final Syscalls syscalls, final BpfProgram program, final byte[] frame)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            final MemorySegment output = arena.allocate(frame.length + OUTPUT_SLACK);
            attr.set(ValueLayout.JAVA_INT, TestRun.PROG_FD, program.fd());
            attr.set(ValueLayout.JAVA_INT, TestRun.DATA_SIZE_IN, frame.length);
            attr.set(ValueLayout.JAVA_LONG, TestRun.DATA_IN,
                arena.allocateFrom(ValueLayout.JAVA_BYTE, frame).address());
            attr.set(ValueLayout.JAVA_INT, TestRun.DATA_SIZE_OUT, (int)output.byteSize());
            attr.set(ValueLayout.JAVA_LONG, TestRun.DATA_OUT, output.address());
            attr.set(ValueLayout.JAVA_INT, TestRun.REPEAT, 1);
            Syscalls.check("bpf(BPF_PROG_TEST_RUN)",
                syscalls.bpf(TestRun.COMMAND, attr.address(), BpfAttr.SIZE_BYTES),
                "program " + program.name() + " on " + frame.length + " bytes");
            final int length = attr.get(ValueLayout.JAVA_INT, TestRun.DATA_SIZE_OUT);
            return new Result(attr.get(ValueLayout.JAVA_INT, TestRun.RETVAL),
                output.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
