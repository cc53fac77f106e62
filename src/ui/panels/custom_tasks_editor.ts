// The configuration form's editor of custom tasks (the customTasks field): one prompt per task with
// either an expected output or assert tests, switchable, plus adding and removing tasks. Separate
// from config_panel.ts, which builds the schema's generic fields and hands this editor the draft.
import type { CustomTaskInput } from '../../tasks/custom.ts';
import { h, replace } from './dom.ts';

/** The custom task editor: prompt + expected output, or prompt + assert tests, per task. */
export function customTasksEditor(
  get: () => CustomTaskInput[],
  set: (tasks: CustomTaskInput[]) => void,
  onRefresh: (refresh: () => void) => void,
): HTMLElement {
  const list = h('div');
  const render = () => {
    const tasks = get();
    replace(
      list,
      ...tasks.map((task, index) => {
        const mode = typeof task.tests === 'string' && !task.expectedOutput ? 'tests' : 'expected';
        const update = (patch: Partial<CustomTaskInput>) => {
          const next = get().map((t, i) => (i === index ? { ...t, ...patch } : t));
          set(next);
        };
        const prompt = h('textarea', {
          placeholder: 'What should the program do? e.g. Print the sum of the squares of 1..10.',
          'data-testid': `task-prompt-${index}`,
        });
        prompt.value = task.prompt;
        prompt.addEventListener('input', () => update({ prompt: prompt.value }));
        const check =
          mode === 'tests'
            ? h('textarea', { placeholder: 'assert f(2) == 4', class: 'mono' })
            : h('input', { type: 'text', placeholder: 'last printed line, e.g. 385' });
        check.setAttribute('data-testid', `task-check-${index}`);
        check.value = (mode === 'tests' ? task.tests : task.expectedOutput) ?? '';
        check.addEventListener('input', () =>
          update(
            mode === 'tests'
              ? { tests: check.value, expectedOutput: null }
              : { expectedOutput: check.value, tests: null },
          ),
        );
        const toggle = (next: 'tests' | 'expected') => () => {
          set(
            get().map((t, i) =>
              i === index
                ? next === 'tests'
                  ? { prompt: t.prompt, tests: '' }
                  : { prompt: t.prompt, expectedOutput: '' }
                : t,
            ),
          );
          render();
        };
        return h(
          'div',
          { class: 'task-editor' },
          prompt,
          h(
            'div',
            { class: 'row' },
            h(
              'label',
              null,
              h('input', {
                type: 'radio',
                name: `mode-${index}`,
                checked: mode === 'expected',
                onchange: toggle('expected'),
              }),
              ' expected output',
            ),
            h(
              'label',
              null,
              h('input', {
                type: 'radio',
                name: `mode-${index}`,
                checked: mode === 'tests',
                onchange: toggle('tests'),
              }),
              ' assert tests',
            ),
            h('span', { class: 'spacer', style: 'flex:1' }),
            h(
              'button',
              {
                class: 'small',
                onclick: () => {
                  set(get().filter((_, i) => i !== index));
                  render();
                },
              },
              'Remove',
            ),
          ),
          check,
        );
      }),
    );
  };
  onRefresh(render);
  return h(
    'div',
    null,
    list,
    h(
      'button',
      {
        class: 'small',
        'data-testid': 'add-task',
        onclick: () => {
          set([...get(), { prompt: '', expectedOutput: '' }]);
          render();
        },
      },
      '+ Add a task',
    ),
  );
}
