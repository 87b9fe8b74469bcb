package io.jvs.nativebindings.bpf;

/**
 * Numbers of the kernel helper functions jvs's programs call ({@code enum bpf_func_id}).
 */
public final class BpfHelper
{
    /** {@code void *bpf_map_lookup_elem(map, key)}: the value, or NULL. */
    public static final int MAP_LOOKUP_ELEM = 1;

    /** {@code u64 bpf_ktime_get_ns(void)}: CLOCK_MONOTONIC in nanoseconds, the clock of System.nanoTime. */
    public static final int KTIME_GET_NS = 5;

    /**
     * {@code long bpf_skb_load_bytes(skb, offset, to, len)}: copies {@code len} bytes from {@code offset} of the
     * packet data (where the program type's {@code skb->data} points) into memory the program owns; 0, or
     * -EFAULT with {@code to} zeroed when the packet is shorter. Programs without direct packet access (socket
     * filters) read packets this way.
     */
    public static final int SKB_LOAD_BYTES = 26;

    /**
     * {@code long bpf_redirect_map(map, key, flags)}: XDP_REDIRECT when the slot holds a target, else the low
     * two bits of {@code flags} (the fallback action).
     */
    public static final int REDIRECT_MAP = 51;

    /**
     * {@code long bpf_probe_read_kernel(dst, size, unsafe_ptr)}: copies {@code size} bytes of kernel memory into
     * the program's stack; 0, or a negative errno with {@code dst} zeroed. Tracing programs read kernel structures
     * this way.
     */
    public static final int PROBE_READ_KERNEL = 113;

    private BpfHelper()
    {
    }
}
