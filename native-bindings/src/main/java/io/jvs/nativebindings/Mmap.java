package io.jvs.nativebindings;

/**
 * Constants of mmap(2) (Linux, x86-64).
 */
public final class Mmap
{
    public static final int PROT_NONE = 0x0;
    public static final int PROT_READ = 0x1;
    public static final int PROT_WRITE = 0x2;

    /** Rings of AF_XDP and AF_PACKET sockets are shared with the kernel. */
    public static final int MAP_SHARED = 0x01;
    public static final int MAP_PRIVATE = 0x02;
    public static final int MAP_ANONYMOUS = 0x20;
    /** Pre-faults the pages, so the first packets do not pay for page faults. */
    public static final int MAP_POPULATE = 0x8000;

    /** The page size on x86-64; mmap offsets and lengths are multiples of it. */
    public static final int PAGE_SIZE = 4096;

    private Mmap()
    {
    }
}
