console.log("embedded");
