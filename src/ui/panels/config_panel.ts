// The configuration form, generated from the RunConfig schema (config_fields.ts): edits go into a
// draft, each value is checked by the schema as it is typed and explained inline, and "Apply"
// configures the worker (which starts the run over). No field is listed here by hand. A preset
// (src/run/presets.ts) fills the draft in one go; the selector shows which one the draft is.
import { REWARDS } from '../../rl/rewards.ts';
import { checkField } from '../../run/config_validation.ts';
import type { FieldName, RunConfig } from '../../run/config.ts';
import { presetConfig } from '../../run/presets.ts';
import type { CustomTaskInput } from '../../tasks/custom.ts';
import {
  configProblems,
  fieldMessages,
  formButtons,
  formFields,
  listChoices,
  matchingPreset,
  numberText,
  parseNumberField,
  presetDraft,
  presetNames,
  type FormField,
} from '../state/config_fields.ts';
import type { FormEdits } from '../state/link_edits.ts';
import { h, setText } from './dom.ts';
import { customTasksEditor } from './custom_tasks_editor.ts';
import type { RunController } from '../state/run_controller.ts';

/**
 * The form card. `onEdits` hears the form's values and refused inputs after every change (Copy link
 * carries the valid unapplied edits and names the others: link_edits.ts).
 */
export function configPanel(
  controller: RunController,
  onEdits?: (edits: FormEdits) => void,
): HTMLElement {
  let draft: RunConfig = structuredClone(controller.config);
  /** Fields whose text does not parse, with the message. */
  const invalid = new Map<string, string>();
  const errorSlots = new Map<string, HTMLElement>();
  const fieldRoots = new Map<string, HTMLElement>();
  const inputs = new Map<string, () => void>(); // field -> refresh input from draft
  const apply = h(
    'button',
    {
      class: 'primary',
      'data-testid': 'apply-config',
      onclick: () => void controller.applyConfig(structuredClone(draft)),
    },
    'Apply',
  );
  const revert = h(
    'button',
    {
      'data-testid': 'revert-config',
      onclick: () => {
        draft = structuredClone(controller.config);
        invalid.clear();
        refreshAll();
      },
    },
    'Revert',
  );
  const defaults = h(
    'button',
    {
      class: 'link',
      onclick: () => {
        draft = { ...presetConfig('default'), model: draft.model };
        invalid.clear();
        refreshAll();
      },
    },
    'Defaults',
  );
  const hint = h('span', { class: 'hint' });
  const presets = presetNames();
  const presetSelect = h(
    'select',
    {
      id: 'f-preset',
      'data-testid': 'preset-select',
      title: 'Fills the form with a named run; Apply starts it',
    },
    h('option', { value: '', disabled: true }, 'custom'),
    ...presets.map((name) => h('option', { value: name }, name)),
  );
  presetSelect.addEventListener('change', () => {
    const name = presets.find((p) => p === presetSelect.value);
    if (!name) return;
    draft = presetDraft(name, draft.model);
    invalid.clear();
    refreshAll();
  });

  const setValue = (name: FieldName, value: unknown) => {
    (draft as Record<string, unknown>)[name] = value;
    invalid.delete(name);
    validate();
  };

  // Custom tests are compiled by Python in the sandbox (the worker), after each change settles:
  // until the answer comes, Apply waits; a test that does not compile is the field's error.
  let testsChecked = JSON.stringify(controller.config.customTasks);
  let testsProblems: string[] = [];
  let testsPending = false;
  let testsRound = 0;
  const checkTests = (tasks: RunConfig['customTasks']) => {
    const round = ++testsRound;
    // nothing to compile (no task has tests): nothing to wait for
    testsPending = tasks.some((t) => typeof t.tests === 'string' && t.tests.trim() !== '');
    if (!testsPending) return;
    setTimeout(() => {
      if (round !== testsRound) return;
      controller.testsProblems(tasks).then(
        (found) => {
          if (round !== testsRound) return;
          testsProblems = found;
          testsPending = false;
          validate();
        },
        () => {
          // no sandbox to ask (not started yet): the run's rewards will say
          if (round !== testsRound) return;
          testsProblems = [];
          testsPending = false;
          validate();
        },
      );
    }, 300);
  };

  const validate = () => {
    const tasksNow = JSON.stringify(draft.customTasks);
    if (tasksNow !== testsChecked) {
      testsChecked = tasksNow;
      testsProblems = [];
      checkTests(structuredClone(draft.customTasks));
    }
    const problems = configProblems(draft);
    if (testsProblems.length > 0)
      problems.set('customTasks', [...(problems.get('customTasks') ?? []), ...testsProblems]);
    for (const [name, slot] of errorSlots) {
      // each message once: a custom task the schema refuses is also a problem of the draft
      const messages = fieldMessages(invalid.get(name), problems.get(name) ?? []);
      setText(slot, messages.join('\n'));
      fieldRoots.get(name)?.classList.toggle('invalid', messages.length > 0);
    }
    presetSelect.value = matchingPreset(draft) ?? '';
    const dirty = JSON.stringify(draft) !== JSON.stringify(controller.config);
    const ok = invalid.size === 0 && problems.size === 0 && !testsPending;
    controller.setDraft(dirty && ok ? structuredClone(draft) : null); // the model card's estimates follow
    if (onEdits) {
      const refused = new Map(invalid);
      const tasksEdited = tasksNow !== JSON.stringify(controller.config.customTasks);
      if (tasksEdited && testsProblems.length > 0)
        refused.set(
          'customTasks',
          [refused.get('customTasks'), ...testsProblems].filter(Boolean).join('\n'),
        );
      onEdits({ draft: structuredClone(draft), invalid: refused });
    }
    const buttons = formButtons({
      edited: dirty,
      refused: invalid.size,
      problems: problems.size,
      checking: testsPending,
      canConfigure: controller.controls().configure,
    });
    apply.disabled = !buttons.apply;
    revert.disabled = !buttons.revert;
    setText(hint, buttons.hint);
  };

  const refreshAll = () => {
    for (const refresh of inputs.values()) refresh();
    validate();
  };

  const fieldInput = (field: FormField): HTMLElement => {
    const name = field.name;
    const value = () => (draft as Record<string, unknown>)[name];
    switch (field.input) {
      case 'number': {
        const input = h('input', {
          type: 'text',
          inputmode: 'decimal',
          id: `f-${name}`,
          name,
          'data-testid': `field-${name}`,
          autocomplete: 'off',
        });
        inputs.set(name, () => {
          input.value = numberText(value() as number | null);
        });
        input.addEventListener('input', () => {
          const parsed = parseNumberField(name, input.value);
          if ('error' in parsed) {
            invalid.set(name, parsed.error);
            validate();
          } else setValue(name, parsed.value);
        });
        return input;
      }
      case 'checkbox': {
        const input = h('input', {
          type: 'checkbox',
          id: `f-${name}`,
          'data-testid': `field-${name}`,
        });
        inputs.set(name, () => {
          input.checked = value() === true;
        });
        input.addEventListener('change', () => setValue(name, input.checked));
        return input;
      }
      case 'select': {
        const select = h(
          'select',
          { id: `f-${name}`, 'data-testid': `field-${name}` },
          ...field.choices.map((choice) => h('option', { value: choice }, choice)),
        );
        inputs.set(name, () => {
          select.value = String(value());
        });
        select.addEventListener('change', () => setValue(name, select.value));
        return select;
      }
      case 'multi': {
        const boxes = field.choices.map((choice) => {
          const box = h('input', { type: 'checkbox', value: choice });
          box.addEventListener('change', () => {
            const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
            const checked = checkField(name, chosen);
            if ('error' in checked) {
              invalid.set(name, checked.error);
              validate();
            } else setValue(name, checked.value);
          });
          return box;
        });
        inputs.set(name, () => {
          const choices = listChoices(field, value() as string[]);
          boxes.forEach((box, i) => {
            box.checked = choices[i]!.checked;
          });
        });
        return h(
          'div',
          { class: 'choices', 'data-testid': `field-${name}` },
          ...boxes.map((box) => h('label', null, box, ` ${box.value}`)),
        );
      }
      case 'weights': {
        const parts = [...REWARDS.keys()];
        const boxes = parts.map((part) =>
          h('input', {
            type: 'text',
            inputmode: 'decimal',
            'data-part': part,
            title: REWARDS.get(part)!.description,
          }),
        );
        const read = () => {
          const weights: Record<string, unknown> = {};
          parts.forEach((part, i) => {
            const text = boxes[i]!.value.trim();
            weights[part] = text === '' ? Number.NaN : Number(text);
          });
          const checked = checkField(name, weights);
          if ('error' in checked) {
            invalid.set(name, checked.error);
            validate();
          } else setValue(name, checked.value);
        };
        for (const box of boxes) box.addEventListener('input', read);
        inputs.set(name, () => {
          const weights = value() as Record<string, number>;
          parts.forEach((part, i) => {
            boxes[i]!.value = String(weights[part] ?? 0);
          });
        });
        return h(
          'div',
          { class: 'weights', 'data-testid': `field-${name}` },
          ...parts.flatMap((part, i) => [
            h('span', { title: REWARDS.get(part)!.description }, part),
            boxes[i]!,
          ]),
        );
      }
      case 'tasks':
        return customTasksEditor(
          () => value() as CustomTaskInput[],
          (tasks) => {
            const checked = checkField(name, tasks);
            if ('error' in checked) {
              (draft as Record<string, unknown>)[name] = tasks;
              invalid.set(name, checked.error);
              validate();
            } else setValue(name, checked.value);
          },
          (refresh) => inputs.set(name, refresh),
        );
      case 'text': {
        const input = h('input', { type: 'text', id: `f-${name}`, 'data-testid': `field-${name}` });
        inputs.set(name, () => {
          input.value = String(value());
        });
        input.addEventListener('input', () => {
          const checked = checkField(name, input.value);
          if ('error' in checked) {
            invalid.set(name, checked.error);
            validate();
          } else setValue(name, checked.value);
        });
        return input;
      }
    }
  };

  const sections = new Map<string, HTMLElement>();
  for (const field of formFields().filter((f) => f.generic)) {
    let section = sections.get(field.section);
    if (!section) {
      section = h(
        'details',
        {
          open:
            field.section === 'Tasks' ||
            field.section === 'Rollout' ||
            field.section === 'GRPO update',
        },
        h('summary', null, field.section),
      );
      sections.set(field.section, section);
    }
    const error = h('div', { class: 'field-error', 'data-testid': `field-error-${field.name}` });
    errorSlots.set(field.name, error);
    const wide = field.input === 'tasks' || field.input === 'weights' || field.input === 'multi';
    const root = h(
      'div',
      {
        class: `field${wide ? ' wide' : ''}${field.input === 'multi' ? ' list' : ''}`,
        'data-field': field.name,
      },
      h('label', { for: `f-${field.name}`, title: field.help }, field.label),
      fieldInput(field),
      h('div', { class: 'help' }, field.help),
      error,
    );
    fieldRoots.set(field.name, root);
    section.append(root);
  }
  // Inside the fieldset, so a preset cannot be picked while the run trains (like every field).
  const fieldset = h(
    'fieldset',
    null,
    h(
      'div',
      { class: 'preset-row' },
      h('label', { for: 'f-preset' }, 'Preset'),
      presetSelect,
      h('span', { class: 'help' }, 'a named run to start from; Apply starts it'),
    ),
    ...sections.values(),
  );
  controller.subscribe((change) => {
    if (change === 'config') {
      draft = structuredClone(controller.config);
      invalid.clear();
      refreshAll();
    }
    if (change === 'state') {
      fieldset.disabled =
        controller.state === 'training' ||
        controller.state === 'pausing' ||
        controller.state === 'starting';
      validate();
    }
  });
  refreshAll();
  return h(
    'section',
    { class: 'card form', 'data-control': 'config', 'data-testid': 'config' },
    h('h2', null, 'Configuration'),
    h('div', { class: 'form-actions' }, apply, revert, defaults, hint),
    fieldset,
  );
}
