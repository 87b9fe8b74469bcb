package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;

import io.jvs.nativebindings.Syscalls;

import static io.jvs.nativebindings.bpf.BpfAttr.MapCreate;
import static io.jvs.nativebindings.bpf.BpfAttr.MapElement;

/**
 * A BPF map owned by this process: created with {@code BPF_MAP_CREATE}, read and written from the control
 * path (each call allocates its {@code bpf_attr}), freed by the kernel once this fd is closed and no loaded
 * program refers to it. Like every class here, it makes its calls through the {@link Syscalls} instance it
 * was given, which is not thread-safe: give it one that only the control thread uses.
 */
public final class BpfMap implements AutoCloseable
{
    /** {@code BPF_MAP_TYPE_HASH}. */
    public static final int TYPE_HASH = 1;
    /** {@code BPF_MAP_TYPE_ARRAY}: 4-byte index keys 0..max_entries-1, every value present and zeroed at creation. */
    public static final int TYPE_ARRAY = 2;
    /**
     * {@code BPF_MAP_TYPE_LPM_TRIE}: longest-prefix match; the key is {@code struct bpf_lpm_trie_key_u8}, a
     * 32-bit prefix length in host order followed by the data (an address in network order). A lookup with a
     * full-length key finds the longest stored prefix containing it.
     */
    public static final int TYPE_LPM_TRIE = 11;
    /** {@code BPF_MAP_TYPE_XSKMAP}: queue index to AF_XDP socket, the target of {@code bpf_redirect_map}. */
    public static final int TYPE_XSKMAP = 17;
    /** {@code BPF_F_NO_PREALLOC}: entries allocated as they are added (an LPM trie takes nothing else). */
    public static final int F_NO_PREALLOC = 1;
    /** {@code BPF_F_MMAPABLE}: an ARRAY whose values a process can map into its memory and read without calls. */
    public static final int F_MMAPABLE = 1 << 10;
    /** {@code BPF_MAP_TYPE_DEVMAP}: slot to interface index, for {@code bpf_redirect_map} from XDP. */
    public static final int TYPE_DEVMAP = 14;

    private static final int ENOENT = 2;

    private final Syscalls syscalls;
    private final String name;
    private final int type;
    private final int keySize;
    private final int valueSize;
    private final int maxEntries;
    private int fd;

    private BpfMap(
        final Syscalls syscalls, final int fd, final String name, final int type, final int keySize,
        final int valueSize, final int maxEntries)
    {
        this.syscalls = syscalls;
        this.fd = fd;
        this.name = name;
        this.type = type;
        this.keySize = keySize;
        this.valueSize = valueSize;
        this.maxEntries = maxEntries;
    }

    /**
     * @param name       at most 15 letters, digits, '_' or '.' (shown by bpftool).
     * @return a new map.
     * @throws io.jvs.nativebindings.NativeCallException when the kernel refuses (EPERM without CAP_BPF,
     *                                                    EINVAL for sizes the map type does not take).
     */
    public static BpfMap create(
        final Syscalls syscalls, final int type, final String name, final int keySize, final int valueSize,
        final int maxEntries)
    {
        return create(syscalls, type, name, keySize, valueSize, maxEntries, 0);
    }

    /**
     * @param flags {@code map_flags}, such as {@link #F_NO_PREALLOC}.
     * @return a new map.
     * @throws io.jvs.nativebindings.NativeCallException when the kernel refuses.
     */
    public static BpfMap create(
        final Syscalls syscalls, final int type, final String name, final int keySize, final int valueSize,
        final int maxEntries, final int flags)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            attr.set(ValueLayout.JAVA_INT, MapCreate.MAP_TYPE, type);
            attr.set(ValueLayout.JAVA_INT, MapCreate.KEY_SIZE, keySize);
            attr.set(ValueLayout.JAVA_INT, MapCreate.VALUE_SIZE, valueSize);
            attr.set(ValueLayout.JAVA_INT, MapCreate.MAX_ENTRIES, maxEntries);
            attr.set(ValueLayout.JAVA_INT, MapCreate.MAP_FLAGS, flags);
            BpfObjectName.write(attr, MapCreate.MAP_NAME, name);
            final long fd = Syscalls.check("bpf(BPF_MAP_CREATE)",
                syscalls.bpf(MapCreate.COMMAND, attr.address(), BpfAttr.SIZE_BYTES),
                "map " + name + " of type " + type + ", key " + keySize + " B, value " + valueSize + " B, " +
                    maxEntries + " entries, flags " + flags);
            return new BpfMap(syscalls, (int)fd, name, type, keySize, valueSize, maxEntries);
        }
    }

    /**
     * @return a hash map.
     */
    public static BpfMap createHash(
        final Syscalls syscalls, final String name, final int keySize, final int valueSize, final int maxEntries)
    {
        return create(syscalls, TYPE_HASH, name, keySize, valueSize, maxEntries);
    }

    /**
     * @return an array map: every entry exists from the start, zeroed (a program's counters).
     */
    public static BpfMap createArray(final Syscalls syscalls, final String name, final int valueSize,
        final int entries)
    {
        return create(syscalls, TYPE_ARRAY, name, Integer.BYTES, valueSize, entries);
    }

    /**
     * @param dataBytes how many bytes of data follow the key's prefix length (4 for IPv4, 16 for IPv6).
     * @return an LPM trie ({@link #TYPE_LPM_TRIE}, {@link #F_NO_PREALLOC}, which the kernel requires of it) with
     *         keys of 4 + {@code dataBytes} bytes.
     */
    public static BpfMap createLpmTrie(final Syscalls syscalls, final String name, final int dataBytes,
        final int valueSize, final int maxEntries)
    {
        return create(syscalls, TYPE_LPM_TRIE, name, Integer.BYTES + dataBytes, valueSize, maxEntries,
            F_NO_PREALLOC);
    }

    /**
     * @param queues how many queues may get a socket (keys 0 to queues - 1).
     * @return an XSKMAP: 4-byte queue index to the 4-byte fd of an AF_XDP socket.
     */
    public static BpfMap createXskMap(final Syscalls syscalls, final String name, final int queues)
    {
        return create(syscalls, TYPE_XSKMAP, name, Integer.BYTES, Integer.BYTES, queues);
    }

    /**
     * Creates or replaces an entry ({@code BPF_MAP_UPDATE_ELEM}).
     *
     * @param flags {@link MapElement#UPDATE_ANY}, {@code UPDATE_NO_EXIST} or {@code UPDATE_EXIST}.
     * @throws io.jvs.nativebindings.NativeCallException when refused (E2BIG when full, EEXIST/ENOENT by flags).
     */
    public synchronized void update(final byte[] key, final byte[] value, final long flags)
    {
        checkLength("key", key, keySize);
        checkLength("value", value, valueSize);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = elementAttr(arena, key);
            attr.set(ValueLayout.JAVA_LONG, MapElement.VALUE, arena.allocateFrom(ValueLayout.JAVA_BYTE, value).address());
            attr.set(ValueLayout.JAVA_LONG, MapElement.FLAGS, flags);
            Syscalls.check("bpf(BPF_MAP_UPDATE_ELEM)",
                syscalls.bpf(MapElement.UPDATE_COMMAND, attr.address(), BpfAttr.SIZE_BYTES), "map " + name);
        }
    }

    /**
     * @return native buffers for one thread to write keys and values into and update or delete entries with, no
     *         allocation a call (the worker's hot path may put a flow a new connection); closed with the map's user.
     */
    public Elements elements()
    {
        return new Elements();
    }

    /**
     * A key, a value and a {@code bpf_attr}, in native memory, reused by {@link #update()} and {@link #delete()}:
     * one thread's, not thread-safe.
     */
    public final class Elements implements AutoCloseable
    {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment key = arena.allocate(keySize, 8);
        private final MemorySegment value = arena.allocate(valueSize, 8);
        private final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);

        private Elements()
        {
        }

        /** @return where the key is written. */
        public MemorySegment key()
        {
            return key;
        }

        /** @return where the value is written. */
        public MemorySegment value()
        {
            return value;
        }

        /**
         * Creates or replaces the entry of {@link #key()} with {@link #value()} ({@code BPF_MAP_UPDATE_ELEM},
         * UPDATE_ANY).
         *
         * @return 0, or -errno (E2BIG: the map is full).
         */
        public long update()
        {
            prepare();
            attr.set(ValueLayout.JAVA_LONG, MapElement.VALUE, value.address());
            attr.set(ValueLayout.JAVA_LONG, MapElement.FLAGS, MapElement.UPDATE_ANY);
            return syscalls.bpf(MapElement.UPDATE_COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
        }

        /**
         * Removes the entry of {@link #key()} ({@code BPF_MAP_DELETE_ELEM}).
         *
         * @return 0, or -errno (ENOENT: there was none).
         */
        public long delete()
        {
            prepare();
            return syscalls.bpf(MapElement.DELETE_COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
        }

        private void prepare()
        {
            attr.fill((byte)0);
            attr.set(ValueLayout.JAVA_INT, MapElement.MAP_FD, fd());
            attr.set(ValueLayout.JAVA_LONG, MapElement.KEY, key.address());
        }

        @Override
        public void close()
        {
            arena.close();
        }
    }

    /** Sets the entry whatever it held: {@link #update(byte[], byte[], long)} with UPDATE_ANY. */
    public void put(final byte[] key, final byte[] value)
    {
        update(key, value, MapElement.UPDATE_ANY);
    }

    /** Sets a 4-byte key to a 4-byte value, both in native (little-endian) order: XSKMAP queue to socket fd. */
    public void put(final int key, final int value)
    {
        put(intBytes(key), intBytes(value));
    }

    /**
     * @return the value stored under {@code key}, or empty when there is none. (XSKMAPs cannot be read from
     *         user space: EOPNOTSUPP.)
     */
    public synchronized Optional<byte[]> lookup(final byte[] key)
    {
        checkLength("key", key, keySize);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = elementAttr(arena, key);
            final MemorySegment value = arena.allocate(valueSize);
            attr.set(ValueLayout.JAVA_LONG, MapElement.VALUE, value.address());
            final long result = syscalls.bpf(MapElement.LOOKUP_COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
            if (result == -ENOENT)
            {
                return Optional.empty();
            }
            Syscalls.check("bpf(BPF_MAP_LOOKUP_ELEM)", result, "map " + name);
            return Optional.of(value.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    /**
     * @return the value under a 4-byte key in native (little-endian) order: an array map's index.
     */
    public Optional<byte[]> lookup(final int key)
    {
        return lookup(intBytes(key));
    }

    /**
     * @return true when an entry was removed, false when there was none.
     */
    public synchronized boolean delete(final byte[] key)
    {
        checkLength("key", key, keySize);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = elementAttr(arena, key);
            final long result = syscalls.bpf(MapElement.DELETE_COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
            if (result == -ENOENT)
            {
                return false;
            }
            Syscalls.check("bpf(BPF_MAP_DELETE_ELEM)", result, "map " + name);
            return true;
        }
    }

    /** Removes a 4-byte key (XSKMAP queue). */
    public boolean delete(final int key)
    {
        return delete(intBytes(key));
    }

    public synchronized int fd()
    {
        checkOpen();
        return fd;
    }

    public String name()
    {
        return name;
    }

    public int type()
    {
        return type;
    }

    public int keySize()
    {
        return keySize;
    }

    public int valueSize()
    {
        return valueSize;
    }

    public int maxEntries()
    {
        return maxEntries;
    }

    /** Closes this process's fd; the kernel frees the map once no loaded program uses it either. */
    @Override
    public synchronized void close()
    {
        if (fd >= 0)
        {
            syscalls.close(fd);
            fd = -1;
        }
    }

    private MemorySegment elementAttr(final Arena arena, final byte[] key)
    {
        checkOpen();
        final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
        attr.set(ValueLayout.JAVA_INT, MapElement.MAP_FD, fd);
        attr.set(ValueLayout.JAVA_LONG, MapElement.KEY, arena.allocateFrom(ValueLayout.JAVA_BYTE, key).address());
        return attr;
    }

    private void checkOpen()
    {
        if (fd < 0)
        {
            throw new IllegalStateException("map " + name + " is closed");
        }
    }

    private static void checkLength(final String what, final byte[] bytes, final int size)
    {
        if (bytes.length != size)
        {
            throw new IllegalArgumentException(what + " is " + bytes.length + " bytes, the map takes " + size);
        }
    }

    private static byte[] intBytes(final int value)
    {
        return new byte[] {(byte)value, (byte)(value >>> 8), (byte)(value >>> 16), (byte)(value >>> 24)};
    }
}
