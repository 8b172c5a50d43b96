#!/usr/bin/perl
# A second independent X12 reader for the tests: Debian's X12::Parser (libx12-parser-perl), driven
# by its own configuration files (the 997's ships with it; the 850's is test/lib/x12/cf/850.cf).
# Reads the file named first with the configuration named second, and prints what it read as JSON:
# the separators it took from the ISA (at its fixed positions, so a wrongly padded ISA is misread)
# and every loop it recognised with its segments, split at its element separator.
use strict;
use warnings;
use JSON::PP;
use X12::Parser;

my ($file, $conf) = @ARGV;
my $p = X12::Parser->new;
$p->parsefile(file => $file, conf => $conf);
my @loops;
while (my ($pos, $level, $loop) = $p->get_next_pos_level_loop) {
  my @segments = $p->get_loop_segments;
  my $element = $p->get_element_separator;
  push @loops, { loop => $loop, level => $level + 0, segments => [map { [split /\Q$element\E/, $_, -1] } @segments] };
}
print JSON::PP->new->canonical->encode({
  element => $p->get_element_separator,
  segment => $p->get_segment_separator,
  component => $p->get_subelement_separator,
  loops => \@loops,
});
