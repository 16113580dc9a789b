//! Buttons under a board: which a reply gets, and which command a press stands for.

use serenity::all::{
    ActionRowComponent, ButtonStyle, CreateActionRow, CreateButton, CreateInputText, CreateModal,
    InputTextStyle, ModalInteractionData,
};

use tessera_core::command_spec::{ButtonSpec, Tone};
use tessera_core::commands::Command;
use tessera_core::commands::{button_command, button_command_with, button_spec, by_path};
use tessera_core::service::Actions;

/// What a button press asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Press {
    /// Ask first, privately: the game, and the button whose `confirm` says how.
    Confirm(i64, &'static str),
    /// Open the button's form (a modal) for what it asks, on this game.
    Form(&'static str, i64),
    Run(Command),
}

/// The button a custom id (`tessera:<id>:<number>`) names, and its number.
pub(super) fn read_id(custom_id: &str) -> Option<(&'static ButtonSpec, i64)> {
    let mut parts = custom_id.split(':');
    if parts.next()? != "tessera" {
        return None;
    }
    Some((button_spec(parts.next()?)?, parts.next()?.parse().ok()?))
}

/// What pressing `spec` on game or tournament `number` asks for.
pub(super) fn press(spec: &'static ButtonSpec, number: i64) -> Option<Press> {
    if spec.confirm.is_some() {
        return Some(Press::Confirm(number, spec.id));
    }
    if spec.asks.is_some() {
        return Some(Press::Form(spec.id, number));
    }
    button_command(spec, number).ok().map(Press::Run)
}

/// Reads a button's custom id, by the command table.
#[cfg(test)]
pub(super) fn button_press(custom_id: &str) -> Option<Press> {
    read_id(custom_id).and_then(|(spec, number)| press(spec, number))
}

/// A button from the table, on game or tournament `number`.
pub(super) fn make_button(spec: &ButtonSpec, number: i64) -> CreateButton {
    let style = match spec.tone {
        Tone::Go => ButtonStyle::Success,
        Tone::Neutral => ButtonStyle::Secondary,
        Tone::Danger => ButtonStyle::Danger,
    };
    CreateButton::new(format!("tessera:{}:{number}", spec.id)).label(spec.label).style(style)
}

/// The buttons under a reply.
pub(super) fn buttons(actions: Option<Actions>) -> Vec<CreateActionRow> {
    let Some((number, ids)) = actions.map(Actions::buttons) else { return Vec::new() };
    let row = ids.iter().filter_map(|id| button_spec(id)).map(|b| make_button(b, number)).collect();
    vec![CreateActionRow::Buttons(row)]
}

/// The form a button that asks opens: one text field for its option, as the command table says it.
pub(super) fn form(button: &str, number: i64) -> Option<CreateModal> {
    let spec = button_spec(button)?;
    let option = by_path(spec.command)?.option(spec.asks?)?;
    let field = CreateInputText::new(InputTextStyle::Paragraph, truncate(option.about, 45), "value")
        .placeholder(truncate(option.hint, 100))
        .required(false)
        .max_length(1000);
    let title = format!("{} #{number}", spec.label.trim_end_matches('…'));
    Some(
        CreateModal::new(format!("tessera-form:{}:{number}", spec.id), truncate(&title, 45))
            .components(vec![CreateActionRow::InputText(field)]),
    )
}

/// The command a submitted form stands for: its button's, with what was written.
pub(super) fn form_command(data: &ModalInteractionData) -> Option<Command> {
    let mut parts = data.custom_id.split(':');
    if parts.next()? != "tessera-form" {
        return None;
    }
    // Only a button that asks has a form: no form stands for another button's press.
    let spec = button_spec(parts.next()?).filter(|b| b.asks.is_some())?;
    let number = parts.next()?.parse().ok()?;
    let written = data.components.iter().flat_map(|row| &row.components).find_map(|c| match c {
        ActionRowComponent::InputText(t) => t.value.clone(),
        _ => None,
    });
    button_command_with(spec, number, written.as_deref()).ok()
}

/// At most `n` characters, as Discord's limits count them.
fn truncate(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}
