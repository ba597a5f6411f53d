// The address maps (views/maps.templ). Each map is one tab stop: its cells
// are links, all but one out of the tab order (a roving tabindex). Arrow
// keys move by a cell or by a row, Home and End to the ends of the row,
// Ctrl+Home and Ctrl+End to the ends of the map; Enter opens the cell (it
// is a link). Hovering, focusing or tapping a cell says what it is below
// the map: on a touch screen a first tap shows, a second opens.
"use strict";

(() => {
	const keys = {
		ArrowLeft: (i) => i - 1,
		ArrowRight: (i) => i + 1,
		ArrowUp: (i, columns) => i - columns,
		ArrowDown: (i, columns) => i + columns,
		Home: (i, columns, ctrl) => (ctrl ? 0 : i - (i % columns)),
		End: (i, columns, ctrl, last) => (ctrl ? last : Math.min(last, i - (i % columns) + columns - 1)),
	};

	for (const box of document.querySelectorAll("[data-map]")) {
		const table = box.querySelector("table");
		const details = box.querySelector("[data-map-details]");
		const columns = table.tHead.rows[0].cells.length - 1;
		const cells = [...table.querySelectorAll("td > a")];
		let current = cells.find((a) => a.tabIndex === 0) || cells[0];
		let pointer = "";

		// show says what the cell is, with a link that opens it.
		const show = (cell) => {
			const open = document.createElement("a");
			open.href = cell.href;
			open.textContent = `Open ${cell.dataset.address || cell.dataset.block}`;
			details.replaceChildren(cell.title, " ", open);
			details.hidden = false;
		};
		// select makes the cell the map's tab stop, and shows it.
		const select = (cell) => {
			current.tabIndex = -1;
			current.classList.remove("selected");
			cell.tabIndex = 0;
			current = cell;
			show(cell);
		};

		table.addEventListener("keydown", (event) => {
			pointer = "keyboard";
			const step = keys[event.key];
			const i = cells.indexOf(event.target);
			if (!step || i < 0 || event.altKey || event.shiftKey || event.metaKey) {
				return;
			}
			event.preventDefault();
			const to = step(i, columns, event.ctrlKey, cells.length - 1);
			if (to >= 0 && to < cells.length) {
				select(cells[to]);
				cells[to].focus();
			}
		});
		table.addEventListener("focusin", (event) => {
			if (cells.includes(event.target) && event.target !== current) {
				select(event.target);
			}
		});
		table.addEventListener("mouseover", (event) => {
			if (cells.includes(event.target)) {
				show(event.target);
			}
		});
		table.addEventListener("pointerdown", (event) => {
			pointer = event.pointerType;
		});
		table.addEventListener("click", (event) => {
			const cell = event.target;
			if ((pointer !== "touch" && pointer !== "pen") || !cells.includes(cell) || cell.classList.contains("selected")) {
				return;
			}
			event.preventDefault();
			select(cell);
			cell.classList.add("selected");
			cell.focus();
		});
		box.dataset.ready = "true";
	}
})();
