package io.jvs.nativebindings.bpf;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Names of maps and programs as the kernel takes them: at most 15 letters, digits, '_' or '.', written
 * NUL-padded into a 16-byte field. Checked here because the kernel answers a bad name with a bare EINVAL.
 */
final class BpfObjectName
{
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_.]{0,15}");

    private BpfObjectName()
    {
    }

    static String check(final String name)
    {
        if (!VALID.matcher(name).matches())
        {
            throw new IllegalArgumentException("BPF object name '" + name +
                "' must be at most 15 letters, digits, '_' or '.'");
        }
        return name;
    }

    static void write(final MemorySegment attr, final long offset, final String name)
    {
        final byte[] bytes = check(name).getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, attr, offset, bytes.length);
    }
}
