package io.jvs.nativebindings.bpf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * The running kernel's own type information ({@code /sys/kernel/btf/vmlinux}, present with
 * {@code CONFIG_DEBUG_INFO_BTF}): where a member lies in a kernel structure, so that a tracing program can read
 * it with {@code bpf_probe_read_kernel} at the offset this kernel was built with (what libbpf's CO-RE relocations
 * do at load time). The format is the kernel's {@code include/uapi/linux/btf.h}: a header, then type records, each
 * followed by data whose size depends on its kind, then a string section.
 */
public final class KernelBtf
{
    /** Where the kernel exposes its BTF. */
    public static final Path VMLINUX = Path.of("/sys/kernel/btf/vmlinux");

    private static final int MAGIC = 0xeB9F;
    private static final int TYPE_RECORD_BYTES = 12;
    private static final int KIND_INT = 1;
    private static final int KIND_ARRAY = 3;
    private static final int KIND_STRUCT = 4;
    private static final int KIND_UNION = 5;
    private static final int KIND_ENUM = 6;
    private static final int KIND_FUNC_PROTO = 13;
    private static final int KIND_VAR = 14;
    private static final int KIND_DATASEC = 15;
    private static final int KIND_DECL_TAG = 17;
    private static final int KIND_ENUM64 = 19;

    private final ByteBuffer types;
    private final ByteBuffer strings;
    /** The byte position in {@link #types} of each type id's record; id 0 is void and has none. */
    private final int[] recordAt;

    private KernelBtf(final ByteBuffer types, final ByteBuffer strings, final int[] recordAt)
    {
        this.types = types;
        this.strings = strings;
        this.recordAt = recordAt;
    }

    /**
     * @return the running kernel's BTF.
     * @throws IOException when the kernel has none (built without {@code CONFIG_DEBUG_INFO_BTF}) or it cannot be
     *                     read.
     */
    public static KernelBtf vmlinux() throws IOException
    {
        return parse(Files.readAllBytes(VMLINUX));
    }

    /**
     * @param raw BTF as the kernel exposes it (not wrapped in an ELF section).
     * @return its types.
     * @throws IOException when it is not BTF or a record runs past its section.
     */
    public static KernelBtf parse(final byte[] raw) throws IOException
    {
        final ByteBuffer all = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        if (raw.length < 24)
        {
            throw new IOException("BTF of " + raw.length + " bytes has no header");
        }
        if ((all.getShort(0) & 0xffff) != MAGIC)
        {
            all.order(ByteOrder.BIG_ENDIAN);
            if ((all.getShort(0) & 0xffff) != MAGIC)
            {
                throw new IOException(String.format("not BTF: magic 0x%04x", all.getShort(0) & 0xffff));
            }
        }
        final int headerBytes = all.getInt(4);
        final ByteBuffer types = section(all, headerBytes + all.getInt(8), all.getInt(12), "type");
        final ByteBuffer strings = section(all, headerBytes + all.getInt(16), all.getInt(20), "string");
        int count = 0;
        int[] recordAt = new int[1 << 16];
        int position = 0;
        while (position < types.limit())
        {
            if (position + TYPE_RECORD_BYTES > types.limit())
            {
                throw new IOException("BTF type " + (count + 1) + " runs past the type section");
            }
            if (++count == recordAt.length)
            {
                recordAt = java.util.Arrays.copyOf(recordAt, recordAt.length * 2);
            }
            recordAt[count] = position;
            position += TYPE_RECORD_BYTES + dataBytes(types.getInt(position + 4));
        }
        return new KernelBtf(types, strings, java.util.Arrays.copyOf(recordAt, count + 1));
    }

    /**
     * @return the byte offset of {@code member} in {@code struct}, looking into the struct's anonymous structs and
     *         unions as C does; empty when this kernel has no such struct or member, or the member is a bit field
     *         that does not start on a byte.
     */
    public OptionalInt memberByteOffset(final String struct, final String member)
    {
        for (int id = 1; id < recordAt.length; id++)
        {
            if (kind(id) == KIND_STRUCT && struct.equals(name(id)))
            {
                final long bits = memberBitOffset(id, member);
                if (bits >= 0 && bits % Byte.SIZE == 0)
                {
                    return OptionalInt.of((int)(bits / Byte.SIZE));
                }
            }
        }
        return OptionalInt.empty();
    }

    private long memberBitOffset(final int id, final String member)
    {
        final int record = recordAt[id];
        final int info = types.getInt(record + 4);
        final boolean bitFields = (info >>> 31) != 0;
        for (int m = 0; m < (info & 0xffff); m++)
        {
            final int at = record + TYPE_RECORD_BYTES + m * 12;
            final int nameOffset = types.getInt(at);
            final int encoded = types.getInt(at + 8);
            final long bits = bitFields ? encoded & 0xff_ffff : encoded & 0xffff_ffffL;
            if (nameOffset == 0)
            {
                final int inner = resolve(types.getInt(at + 4));
                if (inner > 0 && (kind(inner) == KIND_STRUCT || kind(inner) == KIND_UNION))
                {
                    final long within = memberBitOffset(inner, member);
                    if (within >= 0)
                    {
                        return bits + within;
                    }
                }
            }
            else if (member.equals(string(nameOffset)))
            {
                return bits;
            }
        }
        return -1;
    }

    /** @return the type behind const, volatile, restrict and typedef records (kinds 8 to 11), or 0. */
    private int resolve(final int id)
    {
        int type = id;
        for (int depth = 0; depth < 16 && type > 0 && type < recordAt.length; depth++)
        {
            final int kind = kind(type);
            if (kind < 8 || kind > 11)
            {
                return type;
            }
            type = types.getInt(recordAt[type] + 8);
        }
        return 0;
    }

    private int kind(final int id)
    {
        return (types.getInt(recordAt[id] + 4) >>> 24) & 0x1f;
    }

    private String name(final int id)
    {
        return string(types.getInt(recordAt[id]));
    }

    private String string(final int offset)
    {
        int end = offset;
        while (end < strings.limit() && strings.get(end) != 0)
        {
            end++;
        }
        final byte[] bytes = new byte[end - offset];
        strings.get(offset, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** @return how many bytes follow a type record of this {@code info} before the next record. */
    private static int dataBytes(final int info)
    {
        final int vlen = info & 0xffff;
        return switch ((info >>> 24) & 0x1f)
        {
            case KIND_INT, KIND_VAR, KIND_DECL_TAG -> 4;
            case KIND_ARRAY -> 12;
            case KIND_STRUCT, KIND_UNION, KIND_DATASEC, KIND_ENUM64 -> 12 * vlen;
            case KIND_ENUM, KIND_FUNC_PROTO -> 8 * vlen;
            default -> 0;
        };
    }

    private static ByteBuffer section(final ByteBuffer all, final int start, final int length, final String what)
        throws IOException
    {
        if (start < 0 || length < 0 || (long)start + length > all.limit())
        {
            throw new IOException("BTF " + what + " section [" + start + ", +" + length + ") lies outside its " +
                all.limit() + " bytes");
        }
        return all.slice(start, length).order(all.order());
    }
}
