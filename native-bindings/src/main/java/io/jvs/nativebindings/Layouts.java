package io.jvs.nativebindings;

import java.lang.foreign.MemoryLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Offsets and sizes taken from {@link MemoryLayout}s, so a struct's named offsets are derived from its layout
 * and the two cannot disagree. They are {@code int}s because they feed index arithmetic on buffers and
 * segments; no kernel structure comes near 2 GiB.
 */
public final class Layouts
{
    private Layouts()
    {
    }

    /**
     * @param layout a struct layout.
     * @param path   the field's name, then the names of nested fields, e.g. {@code "rx", "producer"}.
     * @return the field's byte offset from the start of the struct.
     */
    public static int offset(final MemoryLayout layout, final String... path)
    {
        final MemoryLayout.PathElement[] elements = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++)
        {
            elements[i] = groupElement(path[i]);
        }
        return Math.toIntExact(layout.byteOffset(elements));
    }

    /**
     * @return the layout's size in bytes, trailing padding included (C's sizeof).
     */
    public static int size(final MemoryLayout layout)
    {
        return Math.toIntExact(layout.byteSize());
    }
}
