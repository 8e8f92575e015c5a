/**
 * The lab's story editor, a part of the page's script (labScript.ts splices it into the same
 * closure): every step of the story listed with Edit, Insert after and Delete; the editor's form
 * holds the command's type and the contract's fields for it. An edit goes through the bundled
 * `editStory` (labEdit.ts), which checks the command with the contract's schema: a malformed one
 * shows the contract's refusal (its code and the bad value) and the story stays as it was.
 * Otherwise the edited story starts over and the model plays it up to the edited step at once,
 * without predictions, so that the answer, the diagram, the store, why and the rules are the
 * edited story's; the learner predicts from the next step on. A story opened from a link
 * (`#story=`, a failure page's) is checked by `parseSharedStory` and opens edited.
 */
export const LAB_EDIT_SCRIPT = `
  let editing = null;

  /** The list of the story's steps, each with its edit buttons; the step to play next marked. */
  function renderSteps() {
    const ol = $('lab-edit-steps');
    ol.replaceChildren();
    story.steps.forEach((s, i) => {
      const li = el('li');
      li.dataset.step = String(i + 1);
      if (i === index) li.className = 'next';
      const cmd = el('code', 'lab-e-cmd', describeCommand(s));
      const edit = el('button', '', 'Edit');
      edit.type = 'button';
      edit.dataset.edit = 'set';
      edit.disabled = !s.do;
      edit.setAttribute('aria-label', 'edit step ' + (i + 1));
      edit.addEventListener('click', () => openEditor('set', i));
      const ins = el('button', '', 'Insert after');
      ins.type = 'button';
      ins.dataset.edit = 'insert';
      ins.setAttribute('aria-label', 'insert a step after step ' + (i + 1));
      ins.addEventListener('click', () => openEditor('insert', i + 1));
      const del = el('button', '', 'Delete');
      del.type = 'button';
      del.dataset.edit = 'delete';
      del.setAttribute('aria-label', 'delete step ' + (i + 1));
      del.addEventListener('click', () => applyEdit({ op: 'delete', at: i }));
      li.append(cmd, edit, ins, del);
      ol.appendChild(li);
    });
  }

  /** The editor's inputs for a command of \`type\`, holding \`command\`'s values. */
  function renderFields(type, command) {
    const box = $('lab-edit-fields');
    box.replaceChildren();
    for (const name of Lab.COMMAND_FIELDS[type] || []) {
      const label = el('label');
      label.append(el('span', '', name));
      const input = el('input');
      input.name = name;
      input.id = 'lab-edit-' + name;
      const v = command && Object.hasOwn(command, name) ? command[name] : '';
      input.value = typeof v === 'string' ? v : JSON.stringify(v);
      label.appendChild(input);
      box.appendChild(label);
    }
  }

  function openEditor(op, at) {
    const base = op === 'set' ? story.steps[at].do : { type: 'claim', worker: 'worker-1', now: Lab.toSnapshot(state).clock };
    editing = { op, at };
    $('lab-editor').hidden = false;
    $('lab-edit-head').textContent = op === 'set' ? 'Edit step ' + (at + 1) : 'Insert a step after step ' + at;
    $('lab-edit-error').hidden = true;
    $('lab-edit-type').value = String(base.type);
    renderFields(String(base.type), base);
    $('lab-edit-type').focus({ preventScroll: true });
  }

  function readEditor() {
    const fields = {};
    for (const input of $('lab-edit-fields').querySelectorAll('input')) fields[input.name] = input.value;
    return Lab.commandFromFields($('lab-edit-type').value, fields);
  }

  /**
   * Applies \`edit\` (labEdit.ts's StoryEdit) when the contract takes it: the edited story starts
   * and the model plays it through the edited step. Returns the refusal, or null.
   */
  function applyEdit(edit) {
    const out = Lab.editStory(story.steps, edit);
    const error = $('lab-edit-error');
    if (!out.ok) {
      error.hidden = false;
      error.replaceChildren(el('b', '', 'refused: ' + out.refusal.code), document.createTextNode(' ' + out.refusal.message));
      return out.refusal;
    }
    error.hidden = true;
    $('lab-editor').hidden = true;
    editing = null;
    begin({ ...story, edited: true, steps: out.steps, final: null });
    playThrough(edit.op === 'delete' ? edit.at : edit.at + 1);
    return null;
  }

  /** Plays the first \`count\` steps without predictions (at most the whole story), the last one's answer shown. */
  function playThrough(count) {
    const n = Math.min(count, story.steps.length);
    for (let i = 0; i < n; i++) playNext(null);
    renderSteps();
  }

  $('lab-edit-type').addEventListener('change', () => renderFields($('lab-edit-type').value, editing && editing.op === 'set' ? story.steps[editing.at].do : null));
  $('lab-edit-apply').addEventListener('click', () => editing && applyEdit({ op: editing.op, at: editing.at, command: readEditor() }));
  $('lab-edit-cancel').addEventListener('click', () => {
    editing = null;
    $('lab-editor').hidden = true;
  });

  /** Opens the story of the page's address (\`#story=\`), when there is one; a bad one is refused by name. Returns whether one opened. */
  function openShared() {
    const hash = window.location.hash;
    if (!hash.startsWith('#story=')) return false;
    try {
      const shared = Lab.parseSharedStory(decodeURIComponent(hash.slice('#story='.length)));
      begin({ ...shared, edited: true, final: null });
      return true;
    } catch (error) {
      start(data.initial);
      const box = $('lab-shared-error');
      box.hidden = false;
      box.textContent = 'The story in this page\\'s address was not opened: ' + (error && error.code ? error.code + ': ' : '') + (error && error.message ? error.message : String(error));
      return true;
    }
  }
`;
