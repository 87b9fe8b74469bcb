package io.jvs.nativebindings.bpf;

import io.jvs.nativebindings.Syscalls;

import static io.jvs.nativebindings.bpf.BpfRegister.R0;

/**
 * tc programs jvs attaches through {@link TcxLink}, and the tcx return codes ({@code enum tcx_action_base}).
 */
public final class TcPrograms
{
    /** {@code TCX_NEXT}: run the next program on the hook, or let the frame go on when there is none. */
    public static final int NEXT = -1;
    /** {@code TCX_PASS}: let the frame go on, skipping the remaining programs. */
    public static final int PASS = 0;
    /** {@code TCX_DROP} ({@code TC_ACT_SHOT}): free the frame. */
    public static final int DROP = 2;

    public static final String DROP_ALL_NAME = "jvs_steal";

    private TcPrograms()
    {
    }

    /**
     * {@code return TCX_DROP;}: at tcx ingress the kernel's stack never sees the frame, while AF_PACKET sockets
     * bound to every protocol already have their copy (they run first). That is how an AF_PACKET port "steals"
     * the frames of a device dedicated to it.
     */
    public static BpfBytecode dropAll()
    {
        return new BpfAssembler()
            .mov64(R0, DROP)
            .exit()
            .build();
    }

    /**
     * Loads {@link #dropAll()} as a SCHED_CLS program for tcx ingress.
     *
     * @throws io.jvs.nativebindings.NativeCallException EPERM without CAP_BPF (and CAP_NET_ADMIN).
     */
    public static BpfProgram loadDropAll(final Syscalls syscalls)
    {
        // The kernel accepts any expected attach type for SCHED_CLS; name the hook it is meant for, as libbpf does.
        return BpfProgram.load(syscalls, BpfProgram.TYPE_SCHED_CLS, TcxDirection.INGRESS.attachType(), DROP_ALL_NAME,
            dropAll(), 0);
    }
}
