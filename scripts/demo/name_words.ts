// English words that made-up names are built from (`--made-up-names F,P,W`), beside syllables.
// A name made of words the model has never seen as a name can only be written by copying it from
// the prompt, which is what a held-out task asks (`unique_chars`, `is_anagram`): a model trained
// only on syllable names learns what a syllable name looks like and writes `muni_chars`.
// None of these words is part of a held-out function's name (checked where they are used, and by
// test/demo/skills.test.ts), nor a Python keyword or builtin.

/** Words of a name's first part: verbs and adjectives a programmer writes. */
export const NAME_HEADS: readonly string[] = (
  'add blend build check collect crunch fetch find fold gather grab keep make mark measure ' +
  'merge mix note pack pick pull read scan score shape sift sort_out spot tally trace track ' +
  'trim turn weigh walk watch bright quick happy little silent golden lucky smart brave calm ' +
  'fancy plain proper tidy'
).split(' ');

/** Words of a name's other parts, and of parameters: everyday nouns. */
export const NAME_NOUNS: readonly string[] = (
  'apple anchor badge basket beacon berry bird blossom boat bottle bridge bucket cabin candle ' +
  'canyon card castle cloud coin comet copper crystal desk dragon drum eagle engine feather ' +
  'fern field flame forest fox garden gem ghost glacier harbor hammer hill honey island ' +
  'jacket jewel kettle kite ladder lake lamp lantern leaf lemon lion marble meadow mirror ' +
  'moon mountain nest ocean orange owl paper parrot pebble pencil pepper piano pillow planet ' +
  'pocket puzzle rabbit rain ribbon river robot rocket saddle sail shadow shell signal silver ' +
  'snow spider spoon star stone storm sugar summer table tiger tower train tree tulip valley ' +
  'violin wagon whale window winter wolf yarn zebra acorn bamboo cactus'
).split(' ');
