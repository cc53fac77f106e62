# Episodes as token ids for GRPOTrainer's rollout_func, token-in/token-out as the tab plays them
# (src/rl/episode_loop.ts, src/tokenizer/chat_delta.ts). The ids the model sampled stay exactly as
# sampled; after a turn, the chat template renders the conversation with the observation, and only
# the text it adds after what the model saw and produced is tokenized and appended (env_mask 0,
# log-prob 0.0: TRL leaves those ids out of the loss, the KL and the importance-sampling ratio).
# That is sound only while the template renders earlier turns the same way each time (the prefix
# property). A template that rewrites history (Qwen3 drops a past turn's <think> block) breaks it:
# the episode is dropped from the update, as the tab drops it, and template_problem() reports it
# before training starts. Nothing here imports TRL; vllm_turns() imports accelerate when called.
import math
import environment

# The tab's probe conversation (chat_delta.ts PROBE_CONVERSATION): one tool round trip with a
# <think> block, the case templates rewrite.
PROBE = [
    {'role': 'system', 'content': 'You solve tasks by writing Python.'},
    {'role': 'user', 'content': 'Print 1+1.'},
    {'role': 'assistant', 'content': '<think>\nEasy.\n</think>\n\n```python\nprint(1+1)\n```'},
    {'role': 'user', 'content': 'Output:\n2'},
    {'role': 'assistant', 'content': 'The answer is 2.'},
]


class PrefixBreak(Exception):
    """The conversation's ids would stop being the rendered chat: the episode cannot go on."""


def render(tokenizer, messages, add_generation_prompt):
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=add_generation_prompt)


def decode(tokenizer, ids, skip_special_tokens=False):
    return tokenizer.decode(ids, skip_special_tokens=skip_special_tokens, clean_up_tokenization_spaces=False)


def mismatch(expected, actual, found='the rendering has'):
    """Where two texts first differ, with a little context, for error messages."""
    i = 0
    while i < len(expected) and i < len(actual) and expected[i] == actual[i]:
        i += 1
    return f'at character {i}, expected {expected[max(0, i - 20):i + 30]!r} but {found} {actual[max(0, i - 20):i + 30]!r}'


def encode_exact(tokenizer, text, what):
    """The ids of `text` with no special tokens added (the template writes its own BOS), checked to
    decode back to exactly `text`: a tokenizer that adds a token or changes the text would make the
    trained ids differ from the rendered chat."""
    ids = list(tokenizer.encode(text, add_special_tokens=False))
    back = decode(tokenizer, ids)
    if back != text:
        raise PrefixBreak(f'the tokenizer does not give back {what} it encoded: {mismatch(text, back, "decoding gives")}')
    return ids


def delta_text(tokenizer, seen, messages, add_generation_prompt):
    """What the template adds after `seen` (the text the model saw and produced) when it renders
    `messages`, or PrefixBreak when that rendering does not begin with `seen`."""
    following = render(tokenizer, messages, add_generation_prompt)
    if not following.startswith(seen):
        raise PrefixBreak("the chat template renders the model's turn differently once the conversation goes on: "
                          + mismatch(seen, following))
    return following[len(seen):]


def template_problem(tokenizer, eos_ids):
    """Why this tokenizer's template cannot be played token-in/token-out (checked on PROBE the way
    the tab checks it at load), or None."""
    eos = decode(tokenizer, [eos_ids[0]]) if eos_ids else ''
    try:
        for i, message in enumerate(PROBE):
            if message['role'] != 'assistant' or i == len(PROBE) - 1:
                continue
            prompt = render(tokenizer, PROBE[:i], True)
            encode_exact(tokenizer, prompt, 'the prompt')
            later = [j for j in range(i + 1, len(PROBE)) if PROBE[j]['role'] == 'assistant']
            end = later[0] if later else len(PROBE)
            delta = delta_text(tokenizer, prompt + message['content'] + eos, PROBE[:end], bool(later))
            encode_exact(tokenizer, delta, 'the observation')
    except PrefixBreak as error:
        return str(error)
    return None


class EpisodeTokens:
    """One episode's ids: the prompt, then each turn's sampled ids (env_mask 1, their sampling
    log-probs) and the ids the template adds for the observation (env_mask 0, log-prob 0.0)."""

    def __init__(self, tokenizer, messages, eos_ids):
        self.tokenizer = tokenizer
        self.eos_ids = set(eos_ids)
        self.messages = list(messages)
        self.text = render(tokenizer, self.messages, True)
        self.prompt_ids = encode_exact(tokenizer, self.text, 'the prompt')
        self.completion_ids, self.logprobs, self.env_mask = [], [], []

    def context(self):
        return self.prompt_ids + self.completion_ids

    def add_turn(self, ids, logprobs):
        if len(logprobs) != len(ids):
            raise ValueError(f'a turn has {len(ids)} ids but {len(logprobs)} log-probs')
        self.completion_ids += ids
        # vLLM reports a NaN log-prob as None: such a token stays in the chat but out of the loss
        # (its sampling log-prob is unknown, so neither its ratio nor its correction can be formed)
        known = [x is not None and math.isfinite(x) for x in logprobs]
        self.logprobs += [float(x) if ok else 0.0 for x, ok in zip(logprobs, known)]
        self.env_mask += [1 if ok else 0 for ok in known]

    def assistant(self, ids):
        """The turn as the template sees it: the sampled text without one trailing eos token."""
        body = ids[:-1] if ids and ids[-1] in self.eos_ids else ids
        return {'role': 'assistant', 'content': decode(self.tokenizer, body)}

    def observation_ids(self, ids, user_text):
        """The ids to append after the sampled `ids` for the observation `user_text`."""
        messages = self.messages + [self.assistant(ids), {'role': 'user', 'content': user_text}]
        seen = self.text + decode(self.tokenizer, ids)
        delta = delta_text(self.tokenizer, seen, messages, True)
        return encode_exact(self.tokenizer, delta, 'the observation'), messages, seen + delta

    def add_observation(self, ids, messages, text):
        self.completion_ids += ids
        self.logprobs += [0.0] * len(ids)
        self.env_mask += [0] * len(ids)
        self.messages, self.text = messages, text

    def finish(self, ids):
        self.messages = self.messages + [self.assistant(ids)]


def step(episode, ids, logprobs, max_positions):
    """One turn: the sampled ids go in, the environment acts on their text (special tokens
    skipped, as the tab parses it), and the observation's ids follow, unless the episode ended."""
    tokens, env = episode['tokens'], episode['env']
    tokens.add_turn(ids, logprobs)
    reply = env.step(decode(tokens.tokenizer, ids, skip_special_tokens=True))
    if reply is None:
        tokens.finish(ids)
        return
    try:
        observation, messages, text = tokens.observation_ids(ids, reply)
    except PrefixBreak as error:
        # The tab drops such a trajectory from the update and counts it (prefixBroken).
        env.episode['prefix_broken'] = str(error)
        tokens.finish(ids)
        env.end('error')
        return
    if max_positions is not None and len(tokens.context()) + len(observation) + 1 >= max_positions:
        # No room to answer the observation, as the tab stops: no sequence outgrows the context.
        tokens.finish(ids)
        env.end('context_full')
        return
    tokens.add_observation(observation, messages, text)


def play(prompts, tokenizer, generate, eos_ids, max_positions=None, any_active=None):
    """Plays one episode per prompt (the dataset's opening messages) to the end, all turns of all
    episodes in rounds: `generate(contexts)` returns (ids, log-probs) for each context's next turn.
    `any_active(local)` tells whether any process still has an episode going (every process must
    join each round of a shared vLLM server); None for one process. Returns rollout_func's dict."""
    episodes = []
    for messages in prompts:
        env = environment.CodeEnvironment()
        opening = env.reset({'id': None, 'prompt': messages[-1]['content']})
        if opening != list(messages):
            raise ValueError(f'a prompt is not the protocol\'s opening turns: {messages!r}')
        episodes.append({'env': env, 'tokens': EpisodeTokens(tokenizer, messages, eos_ids)})
    while True:
        active = [e for e in episodes if not e['env'].episode['done']]
        if not (any_active(bool(active)) if any_active is not None else active):
            break
        turns = generate([e['tokens'].context() for e in active])
        if len(turns) != len(active):
            raise ValueError(f'the generator returned {len(turns)} turns for {len(active)} contexts')
        for episode, (ids, logprobs) in zip(active, turns):
            step(episode, list(ids), list(logprobs), max_positions)
    out = {'prompt_ids': [], 'completion_ids': [], 'logprobs': [], 'env_mask': [], 'episode': []}
    for e in episodes:
        tokens, record = e['tokens'], e['env'].episode
        broken = record.get('prefix_broken') is not None
        record['messages'] = tokens.messages
        out['prompt_ids'].append(tokens.prompt_ids)
        out['completion_ids'].append(tokens.completion_ids)
        out['logprobs'].append(tokens.logprobs)
        # A broken episode trains nothing: no token of it enters the loss (rewards.py scores it None).
        out['env_mask'].append([0] * len(tokens.env_mask) if broken else tokens.env_mask)
        out['episode'].append(record)
    return out


def vllm_turns(trainer):
    """(generate, any_active) for play() on TRL's vLLM engine: colocated, each process generates
    its own contexts; with a server, the main process sends every process's contexts in one
    request and each takes its share back, so every process joins every round."""
    engine = trainer.vllm_generation
    if engine.mode == 'colocate':
        if engine.tensor_parallel_size != 1:
            raise SystemExit('rollout.py generates per process; keep vllm_tensor_parallel_size at 1 in colocate '
                             'mode, or serve the model with `trl vllm-serve --tensor-parallel-size N`.')

        def generate(contexts):
            if not contexts:
                return []
            _, ids, logprobs, _ = engine.generate(prompts=contexts, images=None, num_generations=1)
            return [(list(i), [lp[0] for lp in lps]) for i, lps in zip(ids, logprobs)]
        return generate, None

    from accelerate.utils import broadcast_object_list, gather_object
    accelerator = trainer.accelerator

    def generate(contexts):
        shares = gather_object([list(contexts)])
        payload = None
        if accelerator.is_main_process:
            flat = [c for share in shares for c in share]
            answer = engine.vllm_client.generate(
                prompts=flat, n=1, repetition_penalty=engine.repetition_penalty, temperature=engine.temperature,
                top_p=engine.top_p, top_k=engine.top_k, min_p=engine.min_p or 0.0,
                max_tokens=engine.max_completion_length, logprobs=0, generation_kwargs=engine.generation_kwargs,
            ) if flat else {'completion_ids': [], 'logprobs': []}
            payload = [answer['completion_ids'], answer['logprobs']]
        box = [payload]
        broadcast_object_list(box, from_process=0)
        ids, logprobs = box[0]
        start = sum(len(share) for share in shares[:accelerator.process_index])
        mine = range(start, start + len(contexts))
        return [(list(ids[k]), [lp[0] for lp in logprobs[k]]) for k in mine]

    def any_active(local):
        return any(gather_object([local]))
    return generate, any_active


class ToyChatTokenizer:
    """A character tokenizer with ChatML markup, for --dry-run and the tests: special tokens and a
    few multi-character tokens are matched greedily (so text can be tokenized in more than one way,
    as with real BPE), every other character is one token."""

    SPECIAL = ['<|im_start|>', '<|im_end|>']
    MERGED = ['```', '\n\n']

    def __init__(self, bos=None):
        self.specials = list(self.SPECIAL) + ([bos] if bos else [])
        self.bos_token = bos
        self.vocab = self.specials + self.MERGED
        self.eos_token_id = self.vocab.index('<|im_end|>')
        self.bos_token_id = self.vocab.index(bos) if bos else None

    def encode(self, text, add_special_tokens=True):
        ids = [self.bos_token_id] if add_special_tokens and self.bos_token_id is not None else []
        i = 0
        while i < len(text):
            piece = next((p for p in self.vocab if text.startswith(p, i)), None)
            ids.append(self.vocab.index(piece) if piece else 1000 + ord(text[i]))
            i += len(piece) if piece else 1
        return ids

    def decode(self, ids, skip_special_tokens=False, **_):
        return ''.join('' if (skip_special_tokens and i < len(self.specials)) else
                       self.vocab[i] if i < len(self.vocab) else chr(i - 1000) for i in ids)

    def render_message(self, message, index, messages):
        return f"<|im_start|>{message['role']}\n{message['content']}<|im_end|>\n"

    def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=False):
        text = (self.bos_token or '') + ''.join(self.render_message(m, i, messages) for i, m in enumerate(messages))
        text += '<|im_start|>assistant\n' if add_generation_prompt else ''
        return self.encode(text, add_special_tokens=False) if tokenize else text
