package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An assembled BPF program: its instruction slots and the {@code ld_imm64} slots that still wait for a
 * map's file descriptor. Map fds exist only once the maps are created, so a program is assembled with
 * map names and {@link #link linked} to the fds just before it is loaded.
 */
public final class BpfBytecode
{
    private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final long[] instructions;
    private final List<MapRelocation> relocations;

    /**
     * An {@code ld_imm64} at {@code slot} whose immediate becomes the fd of the map named {@code mapName}.
     */
    public record MapRelocation(int slot, String mapName)
    {
    }

    BpfBytecode(final long[] instructions, final List<MapRelocation> relocations)
    {
        this.instructions = instructions;
        this.relocations = List.copyOf(relocations);
    }

    /**
     * @return the number of 8-byte slots ({@code insn_cnt}); an {@code ld_imm64} counts as two.
     */
    public int slotCount()
    {
        return instructions.length;
    }

    /**
     * @return the packed instruction in {@code slot} (see {@link BpfInstruction}).
     */
    public long slot(final int slot)
    {
        return instructions[slot];
    }

    /**
     * @return the map relocations not yet linked, in slot order.
     */
    public List<MapRelocation> relocations()
    {
        return relocations;
    }

    /**
     * @return the names of the maps the program refers to, in order of first use.
     */
    public Set<String> mapNames()
    {
        final Set<String> names = new LinkedHashSet<>();
        relocations.forEach(relocation -> names.add(relocation.mapName()));
        return names;
    }

    /**
     * Puts map file descriptors into the program.
     *
     * @param mapFds the fd of each map the program names; other entries are ignored.
     * @return the program with those maps' relocations resolved.
     * @throws IllegalArgumentException when a map the program names has no fd.
     */
    public BpfBytecode link(final Map<String, Integer> mapFds)
    {
        final long[] linked = instructions.clone();
        final List<MapRelocation> remaining = new ArrayList<>();
        for (final MapRelocation relocation : relocations)
        {
            final Integer fd = mapFds.get(relocation.mapName());
            if (fd == null)
            {
                remaining.add(relocation);
            }
            else
            {
                linked[relocation.slot()] = BpfInstruction.withImmediate(linked[relocation.slot()], fd);
            }
        }
        if (!remaining.isEmpty())
        {
            throw new IllegalArgumentException("no fd for map(s) " +
                remaining.stream().map(MapRelocation::mapName).distinct().toList() + "; given " + mapFds.keySet());
        }
        return new BpfBytecode(linked, List.of());
    }

    /**
     * @return true when no map relocation is pending, so the kernel can load the program.
     */
    public boolean isLinked()
    {
        return relocations.isEmpty();
    }

    /**
     * @return the instructions in the kernel's layout, 8 little-endian bytes each, in memory from {@code arena}.
     */
    public MemorySegment copyTo(final Arena arena)
    {
        final MemorySegment segment = arena.allocate((long)instructions.length * BpfInstruction.SIZE_BYTES, 8);
        for (int i = 0; i < instructions.length; i++)
        {
            segment.set(LITTLE_ENDIAN_LONG, (long)i * BpfInstruction.SIZE_BYTES, instructions[i]);
        }
        return segment;
    }

    /**
     * @return one line per slot, numbered, as {@link BpfInstruction#toString(long)}.
     */
    public String listing()
    {
        final StringBuilder listing = new StringBuilder();
        for (int i = 0; i < instructions.length; i++)
        {
            listing.append(i).append(": ").append(BpfInstruction.toString(instructions[i])).append('\n');
        }
        return listing.toString();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof BpfBytecode that && Arrays.equals(instructions, that.instructions) &&
            relocations.equals(that.relocations);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(instructions) * 31 + relocations.hashCode();
    }
}
